import Foundation

/// Reads one line of a JSON Lines import: an export line, or an OMDb body.
///
/// An export line is the canonical `IMDBFilm` form with `rawJSON` added (docs/IMDBFILM.md):
/// one in the exact form filmcache writes is read by ``ExportLineReader``, any other with
/// `IMDBFilm.canonicalDecoder()`. A line with a `"Response"` key is an OMDb body: it is
/// normalized as a warm would, under the ID it names, fetched `now`.
struct FilmLine {
    /// Why a line is not a film; the text is short and escaped.
    struct Fault: Error, Equatable {
        var reason: String
    }

    /// When OMDb bodies count as fetched.
    let now: Date
    private let decoder = IMDBFilm.canonicalDecoder()
    private let normalizer = FilmNormalizer()

    /// A reader stamping OMDb bodies with `now`.
    init(now: Date) {
        self.now = now
    }

    /// The film on `line`, with what could not be read from an OMDb body.
    func film(from line: [UInt8]) throws(Fault) -> NormalizedFilm {
        // A line as filmcache writes it is read in one pass, first: its keys are fixed, so it holds no "Response"
        // key and is never an OMDb body. Any other line is an OMDb body or left to the decoder.
        let film: IMDBFilm
        if let read = line.withUnsafeBufferPointer(ExportLineReader.film) {
            film = read
        } else {
            if Self.hasResponseKey(line) { return try omdbBody(line) }
            do {
                film = try decoder.decode(ExportLine.self, from: Data(line)).film
            } catch let error as DecodingError {
                throw Fault(reason: Self.describe(error))
            } catch {
                throw Fault(reason: "not JSON")
            }
        }
        guard PlainTextWorklist.isIMDbID(film.imdbID) else {
            throw Fault(reason: "imdbID \(Self.quoted(film.imdbID)) is not an IMDb ID")
        }
        guard !film.rawJSON.isEmpty else { throw Fault(reason: "no rawJSON (OMDb's body) in the line") }
        return NormalizedFilm(film: film, warnings: [])
    }

    /// Normalizes an OMDb body; an error answer or a body naming no IMDb ID is a fault.
    private func omdbBody(_ line: [UInt8]) throws(Fault) -> NormalizedFilm {
        let body: NormalizedBody
        do {
            body = try normalizer.normalize(body: line, requestedID: "", fetchedAt: now)
        } catch {
            switch error {
            case .noFilm: throw Fault(reason: "an OMDb body naming neither imdbID nor Title")
            case .malformedJSON(let reason):
                throw Fault(reason: "not an OMDb body: \(Self.cut(LogText.escaped(reason)))")
            }
        }
        switch body {
        case .error(let text):
            throw Fault(reason: "an OMDb error answer (\(Self.quoted(text))), not a film")
        case .film(let normalized):
            guard PlainTextWorklist.isIMDbID(normalized.film.imdbID) else {
                throw Fault(reason: "an OMDb body with no valid imdbID")
            }
            return normalized
        }
    }

    /// Whether `line` has a key `"Response"`: the text followed by a colon can only be a key, since
    /// a quote inside a JSON string is escaped.
    static func hasResponseKey(_ line: [UInt8]) -> Bool {
        let key = Array(#""Response""#.utf8)
        guard line.count >= key.count else { return false }
        var index = 0
        while index + key.count <= line.count {
            if line[index] == key[0] && line[index..<index + key.count].elementsEqual(key) {
                var after = index + key.count
                while after < line.count && RecordReader.isWhiteSpace(line[after]) { after += 1 }
                if after < line.count && line[after] == UInt8(ascii: ":") { return true }
            }
            index += 1
        }
        return false
    }

    /// What a decoding error says, in a few words naming the key.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                .drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let context):
            let at = path(context)
            return "no \(at.isEmpty ? "" : at + ".")\(key.stringValue)"
        case .typeMismatch(let type, let context):
            let at = path(context)
            return at.isEmpty ? "not a JSON object" : "\(at): not \(Self.kind(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)): null where \(Self.kind(type)) is needed"
        case .dataCorrupted(let context):
            let at = path(context)
            // Foundation gives a malformed date no coding path; lastFetched is the one date read so.
            if at.isEmpty && context.underlyingError == nil && context.debugDescription.contains("ISO8601") {
                return "lastFetched: not an instant like 2026-11-21T02:54:22Z"
            }
            if at.isEmpty { return "not valid JSON" }
            return "\(at): \(Self.cut(LogText.escaped(context.debugDescription)))"
        @unknown default:
            return "not an export line"
        }
    }

    /// The JSON kind a Swift type is read from.
    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is [Any].Type: "a list"
        default: "a JSON \(type == [String: Any].self ? "object" : "value of the right type")"
        }
    }

    /// `text` quoted, escaped and cut at 80 characters.
    static func quoted(_ text: String) -> String {
        "\"" + cut(LogText.escaped(text)) + "\""
    }

    /// `text` cut at 80 characters with `…`.
    static func cut(_ text: String) -> String {
        text.count > 80 ? text.prefix(80) + "…" : text
    }
}

/// An export line: the canonical form and `rawJSON`, read in one pass over the bytes.
private struct ExportLine: Decodable {
    var film: IMDBFilm

    private enum Keys: String, CodingKey {
        case rawJSON
    }

    init(from decoder: any Decoder) throws {
        film = try IMDBFilm(from: decoder)
        film.rawJSON = try decoder.container(keyedBy: Keys.self).decodeIfPresent(String.self, forKey: .rawJSON) ?? ""
    }
}
