import Foundation

extension IMDBFilm {
    /// The canonical JSON form of this film: UTF-8, keys in documented order, two-space indent,
    /// absent values `null`, empty lists `[]`, dates ISO-8601, ending in a newline.
    ///
    /// Foundation's `JSONEncoder` on Linux orders keys by hash, which differs between runs, so
    /// the form is written by hand; `canonicalDecoder()` (or any JSON reader) reads it back.
    package func canonicalJSON() -> Data {
        var w = CanonicalJSONWriter()
        w.open("{")
        writeCanonicalKeys(&w)
        w.close("}")
        w.out.append(0x0A)
        return Data(w.out)
    }

    /// Appends the export line of this film to `out`: the canonical form written compactly on one
    /// line (same keys, same order, no spaces), then `"rawJSON"` holding OMDb's body as a JSON
    /// string, then a newline (docs/IMDBFILM.md, "JSON Lines").
    public func appendExportLine(to out: inout [UInt8]) {
        var w = CanonicalJSONWriter(compact: true, out: out)
        out = []
        w.open("{")
        writeCanonicalKeys(&w)
        w.key("rawJSON", string: rawJSON)
        w.close("}")
        w.out.append(0x0A)
        out = w.out
    }

    /// Writes every key of the canonical form, in documented order, into the open object.
    private func writeCanonicalKeys(_ w: inout CanonicalJSONWriter) {
        w.key("imdbID", string: imdbID)
        w.key("title", string: title)
        w.key("type", string: type?.description)
        w.key("yearStart", int: yearStart)
        w.key("yearEnd", int: yearEnd)
        w.key("rated", string: rated)
        w.key("released", string: released?.description)
        w.key("runtimeMinutes", int: runtimeMinutes)
        w.key("genres", strings: genres)
        w.key("directors", strings: directors)
        w.key("writers", objects: writers) { w, credit in
            w.key("name", string: credit.name)
            w.key("role", string: credit.role)
        }
        w.key("actors", strings: actors)
        w.key("languages", strings: languages)
        w.key("countries", strings: countries)
        w.key("plot", string: plot)
        w.key("awards", string: awards)
        w.key("posterURL", string: posterURL)
        w.key("imdbRating", raw: imdbRating.map { "\($0)" })
        w.key("imdbVotes", int: imdbVotes)
        w.key("metascore", int: metascore)
        w.key("ratings", objects: ratings) { w, rating in
            w.key("source", string: rating.source.description)
            w.key("value", string: rating.value)
            w.key("score", int: rating.score)
        }
        w.key("boxOfficeUSD", int: boxOfficeUSD)
        w.key("totalSeasons", int: totalSeasons)
        w.key("season", int: season)
        w.key("episode", int: episode)
        w.key("seriesID", string: seriesID)
        w.key("dvd", string: dvd?.description)
        w.key("production", string: production)
        w.key("website", string: website)
        w.key("lastFetched", string: Timestamp.format(lastFetched))
        w.key("dataVersion", int: dataVersion)
    }

    /// A decoder for the canonical JSON form (ISO-8601 dates).
    package static func canonicalDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// Writes JSON in exactly the order it is told, so the canonical form is byte-stable: pretty
/// (two-space indent, `"key": value`), or compact on one line (`"key":value`, no white space).
private struct CanonicalJSONWriter {
    var out: [UInt8] = []
    private var depth = 0
    private var first = true
    /// One line with no white space, for JSON Lines.
    private var compact = false

    init() {}

    /// A compact writer appending to `out`.
    init(compact: Bool, out: [UInt8]) {
        self.compact = compact
        self.out = out
    }

    mutating func open(_ bracket: Character) {
        out.append(contentsOf: String(bracket).utf8)
        depth += 1
        first = true
    }

    mutating func close(_ bracket: Character) {
        depth -= 1
        if !first { newline() }
        out.append(contentsOf: String(bracket).utf8)
        first = false
    }

    private mutating func newline() {
        guard !compact else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: depth * 2))
    }

    private mutating func item() {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        newline()
    }

    private mutating func name(_ key: String) {
        item()
        quoted(key)
        if compact { out.append(UInt8(ascii: ":")) } else { out.append(contentsOf: ": ".utf8) }
    }

    mutating func key(_ key: String, raw: String?) {
        name(key)
        out.append(contentsOf: (raw ?? "null").utf8)
    }

    mutating func key(_ key: String, int: Int?) {
        self.key(key, raw: int.map(String.init))
    }

    mutating func key(_ key: String, string: String?) {
        name(key)
        if let string { quoted(string) } else { out.append(contentsOf: "null".utf8) }
    }

    mutating func key(_ key: String, strings: [String]) {
        name(key)
        if strings.isEmpty { return out.append(contentsOf: "[]".utf8) }
        open("[")
        for s in strings {
            item()
            quoted(s)
        }
        close("]")
    }

    mutating func key<T>(_ key: String, objects: [T], _ body: (inout CanonicalJSONWriter, T) -> Void) {
        name(key)
        if objects.isEmpty { return out.append(contentsOf: "[]".utf8) }
        open("[")
        for object in objects {
            item()
            open("{")
            body(&self, object)
            close("}")
        }
        close("]")
    }

    private mutating func quoted(_ s: String) {
        JSONString.append(s, to: &out)
    }
}
