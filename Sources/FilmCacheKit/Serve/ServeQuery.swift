import Foundation

/// What one OMDb request asks of `filmcache serve`, read from its query string.
///
/// A plain `i=` (short plot) is answered from `films`, like every film a warm fetched. Every other
/// form — `t=`, `s=`, `Season=`, `Season=` with `Episode=`, `plot=full` — is answered from the
/// answer cache, under ``AnswerQuery/cacheKey``: the query with its parameters in one order, its
/// text folded as OMDb matches it (case, accents, runs of spaces), defaults left out, and no key.
package enum ServeQuery: Sendable, Equatable {
    /// `i=` with the short plot: the film as stored.
    case film(imdbID: String)
    /// Any other query: OMDb's answer, kept as it was sent.
    case answer(AnswerQuery)
    /// A request answered at once without the cache or OMDb: OMDb's error for it.
    case invalid(status: Int, message: String)
    /// `r=xml`: the cache serves JSON only, and says so in OMDb's XML error form.
    case xml

    /// Reads a request's query items (names as sent; when one repeats, the last counts, as OMDb
    /// reads them). The `apikey` item is not looked at here.
    public init(_ items: [(name: String, value: String)]) {
        var values: [String: String] = [:]
        for item in items {
            values[item.name.lowercased()] = item.value.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func value(_ name: String) -> String? {
            guard let text = values[name], !text.isEmpty else { return nil }
            return text
        }
        if value("r")?.lowercased() == "xml" {
            self = .xml
            return
        }
        let id = value("i")
        if let id, !PlainTextWorklist.isIMDbID(id) {
            self = .invalid(status: 200, message: OMDbAnswer.incorrectID)
            return
        }
        let title = id == nil ? value("t") : nil
        let type = value("type").map { $0.lowercased() }.flatMap { Self.types.contains($0) ? $0 : nil }
        let year = value("y").flatMap { text in
            text.count <= 4 && text.allSatisfy(\.isASCII) && Int(text) != nil ? text : nil
        }
        let full = value("plot")?.lowercased() == "full"
        var parts = AnswerParts()
        if let season = value("season") {
            guard id != nil || title != nil else {
                self = .invalid(status: 200, message: OMDbAnswer.somethingWentWrong)
                return
            }
            parts.subject(id: id, title: title)
            parts.add("season", season)
            if let episode = value("episode") {
                parts.add("episode", episode)
                parts.kind = .episode
            } else {
                parts.kind = .season
            }
        } else if let id {
            guard full else {
                self = .film(imdbID: id)
                return
            }
            parts.subject(id: id, title: nil)
            parts.kind = .id
        } else if let title {
            parts.subject(id: nil, title: title)
            parts.add("y", year)
            parts.add("type", type)
            parts.kind = .title
            parts.titleQuery = full ? nil : TitleQuery(title: title, year: year.flatMap { Int($0) }, type: type)
        } else if let search = value("s") {
            parts.add("s", search, folded: true)
            parts.add("type", type)
            parts.add("y", year)
            parts.add("page", value("page").flatMap { $0 == "1" ? nil : $0 })
            parts.kind = .search
        } else {
            self = .invalid(status: 200, message: OMDbAnswer.somethingWentWrong)
            return
        }
        if full, parts.kind != .search { parts.add("plot", "full") }
        self = .answer(parts.query)
    }

    /// OMDb's `type` values; another is left out, as OMDb ignores it.
    static let types: Set<String> = ["movie", "series", "episode", "game"]
}

/// A query answered from the answer cache.
package struct AnswerQuery: Sendable, Equatable {
    /// Which of OMDb's query forms it is.
    public enum Kind: String, Sendable {
        /// `i=` with `plot=full`.
        case id
        /// `t=`, with `y=`, `type=`, `plot=`.
        case title
        /// `s=`, with `type=`, `y=`, `page=`.
        case search
        /// `Season=` with `i=` or `t=`: a season's episode list.
        case season
        /// `Season=` and `Episode=`: one episode's film body.
        case episode
    }

    public var kind: Kind
    /// The answer cache's key: `t=heat&y=1995`, parameters in a fixed order, text folded.
    package var cacheKey: String
    /// The query part of the OMDb request after the key, percent-encoded, as the app wrote it.
    public var upstream: String

    /// The answer cache's key for OMDb's negative answer ("Movie not found!"): `asked:` and the
    /// query as sent. A found film answers every spelling that folds to ``cacheKey``; a miss
    /// answers only the spelling that got it, so a misspelling never denies the right title.
    package var askedKey: String { "asked:" + upstream }
    /// The film the query names by ID, whose demand it counts.
    public var imdbID: String?
    /// For `t=` with the short plot: the title index's query, answered when OMDb finds the title.
    package var titleQuery: TitleQuery?

    /// What OMDb's positive answer looks like; another body is not OMDb's and is never stored.
    public var shape: AnswerShape {
        switch kind {
        case .search: .search
        case .season: .season
        case .id, .title, .episode: .film
        }
    }

    /// Whether OMDb answers it with one film's body, which is then stored as the film too.
    package var answersWithFilm: Bool { (kind == .title && titleQuery != nil) || kind == .episode }
}

/// Builds an ``AnswerQuery``'s key and upstream query side by side.
private struct AnswerParts {
    var kind = AnswerQuery.Kind.search
    var key: [String] = []
    var upstream: [String] = []
    var imdbID: String?
    var titleQuery: TitleQuery?

    mutating func subject(id: String?, title: String?) {
        if let id {
            imdbID = id
            add("i", id)
        } else {
            add("t", title, folded: true)
        }
    }

    mutating func add(_ name: String, _ value: String?, folded: Bool = false) {
        guard let value else { return }
        key.append(name + "=" + QueryItems.encode(folded ? Self.fold(value) : value))
        upstream.append(name + "=" + QueryItems.encode(value))
    }

    var query: AnswerQuery {
        AnswerQuery(
            kind: kind, cacheKey: key.joined(separator: "&"), upstream: upstream.joined(separator: "&"),
            imdbID: imdbID, titleQuery: titleQuery)
    }

    /// Text as OMDb matches it: case and accents folded, runs of white space made one space.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

/// The items of a URL's query string as a form decodes them: `&`-separated `name=value` pairs,
/// `+` for a space, percent-escapes decoded (an escape that is not one, or not UTF-8, is kept as written);
/// and a value as OMDb requests carry it.
public enum QueryItems {
    /// `text` percent-encoded, every character but RFC 3986's unreserved ones (ASCII letters and
    /// digits, `-._~`) escaped.
    public static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public static func parse(_ query: Substring) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            guard let equals = pair.firstIndex(of: "=") else { return (decode(pair), "") }
            return (decode(pair[..<equals]), decode(pair[pair.index(after: equals)...]))
        }
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

extension ServeQuery {
    /// The token and ID of a query string that is exactly an `apikey` item and an `i` item (names
    /// in any case, in either order, each once), with nothing to decode (no `%` or `+`) and a
    /// well-formed ID: a request ``init(_:)`` reads as ``film(imdbID:)``, found without building
    /// its items. nil for any other query, which takes the full reading.
    package static func plainFilm(_ query: Substring) -> (token: String, imdbID: String)? {
        // This runs on every memory hit: on the query's bytes where they lie, when they lie together.
        if let plain = query.utf8.withContiguousStorageIfAvailable({ plainFilm(bytes: $0) }) { return plain }
        return plainFilm(bytes: Array(query.utf8)[...])
    }

    /// ``plainFilm(_:)`` of a query's bytes as they were read off a connection.
    package static func plainFilm(_ query: UnsafeRawBufferPointer) -> (token: String, imdbID: String)? {
        plainFilm(bytes: query)
    }

    /// ``plainFilm(_:)`` of a query's bytes: item by item, `&` to `&`, with no array of them made.
    private static func plainFilm<Bytes: Collection<UInt8>>(bytes: Bytes) -> (token: String, imdbID: String)?
    where Bytes.SubSequence: Collection<UInt8> {
        var token: Bytes.SubSequence?
        var id: Bytes.SubSequence?
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            defer { start = end < bytes.endIndex ? bytes.index(after: end) : end }
            let pair = bytes[start..<end]
            if pair.isEmpty { continue }
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let name = pair[..<equals]
            let value = pair[pair.index(after: equals)...]
            guard !value.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return nil }
            if asciiLowercased(name, equals: "apikey") {
                guard token == nil else { return nil }
                token = value
            } else if asciiLowercased(name, equals: "i") {
                guard id == nil else { return nil }
                id = value
            } else {
                return nil
            }
        }
        guard let token, let id, PlainTextWorklist.isIMDbID(bytes: id) else { return nil }
        return (String(decoding: token, as: UTF8.self), String(decoding: id, as: UTF8.self))
    }

    /// Whether `name`, its ASCII letters lowercased, is `lowercase`.
    private static func asciiLowercased(_ name: some Collection<UInt8>, equals lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { letters in
            name.elementsEqual(letters) { byte, letter in
                (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == letter
            }
        }
    }
}
