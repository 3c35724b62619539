import Foundation

/// The TMDb lines of a JSON Lines export, written after the films: an entry,
/// `{"tmdb":{<columns>,"fetched_at":…,"body":<TMDb's details>}}`, and a `/find` answer,
/// `{"tmdb_find":{"imdb_id":…,"media_type":…,"tmdb_id":…,"checked_at":…}}` (both `null` when
/// TMDb knows no entry of the ID).
///
/// The body is embedded as the JSON it is, byte for byte, so an import takes back exactly what TMDb
/// sent; one that cannot stand on one line as it is (a line break between its tokens) is embedded
/// as a JSON string of its bytes instead, which an import reads back to the same bytes. The columns
/// on the line are for readers of the file: an import derives them from the body again.
package enum TMDbLine {
    /// The first key of an entry line.
    package static let entryKey = "tmdb"
    /// The first key of a mapping line.
    package static let mappingKey = "tmdb_find"

    /// The columns of an entry, in the order the line and TMDb's CSV write them.
    package static let columns = [
        "media_type", "id", "imdb_id", "title", "original_title", "overview", "release_date", "runtime", "genres",
        "vote_average", "vote_count", "popularity", "poster_path", "backdrop_path", "collection", "status",
        "fetched_at",
    ]

    /// What one TMDb line holds.
    package enum Entry: Equatable {
        case film(TMDbFilm)
        case mapping(TMDbMapping)
    }

    /// Whether `line` is a TMDb line, by its first key.
    package static func isTMDbLine(_ line: [UInt8]) -> Bool {
        guard let key = JSONSpan.firstKey(line) else { return false }
        return key == entryKey || key == mappingKey
    }

    // MARK: - Writing

    /// Appends the line of `film`, newline included.
    package static func appendFilm(_ film: TMDbFilm, to out: inout [UInt8]) {
        out += #"{"tmdb":{"#.utf8
        out += #""media_type":"#.utf8
        JSONString.append(film.ref.mediaType.rawValue, to: &out)
        out += #","id":\#(film.ref.id)"#.utf8
        string(",\"imdb_id\":", film.imdbID, &out)
        string(",\"title\":", film.title, &out)
        string(",\"original_title\":", film.originalTitle, &out)
        string(",\"overview\":", film.overview, &out)
        string(",\"release_date\":", film.releaseDate, &out)
        raw(",\"runtime\":", film.runtime.map(String.init), &out)
        out += #","genres":["#.utf8
        for (index, genre) in film.genres.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONString.append(genre, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        raw(",\"vote_average\":", film.voteAverage.map { "\($0)" }, &out)
        raw(",\"vote_count\":", film.voteCount.map(String.init), &out)
        raw(",\"popularity\":", film.popularity.map { "\($0)" }, &out)
        string(",\"poster_path\":", film.posterPath, &out)
        string(",\"backdrop_path\":", film.backdropPath, &out)
        string(",\"collection\":", film.collection, &out)
        string(",\"status\":", film.status, &out)
        string(",\"fetched_at\":", Timestamp.format(film.fetchedAt), &out)
        out += #","body":"#.utf8
        if embedsAsIs(film.body) {
            out += film.body
        } else {
            JSONString.append(String(decoding: film.body, as: UTF8.self), to: &out)
        }
        out += "}}\n".utf8
    }

    /// Appends the line of `mapping`, newline included.
    package static func appendMapping(_ mapping: TMDbMapping, to out: inout [UInt8]) {
        out += #"{"tmdb_find":{"imdb_id":"#.utf8
        JSONString.append(mapping.imdbID, to: &out)
        string(",\"media_type\":", mapping.ref?.mediaType.rawValue, &out)
        raw(",\"tmdb_id\":", mapping.ref.map { String($0.id) }, &out)
        string(",\"checked_at\":", Timestamp.format(mapping.checkedAt), &out)
        out += "}}\n".utf8
    }

    /// Whether `body` can be embedded as it is: one JSON object with no line break anywhere in it.
    static func embedsAsIs(_ body: [UInt8]) -> Bool {
        !body.contains(where: { $0 == 0x0A || $0 == 0x0D }) && JSONSpan.members(body) != nil
    }

    private static func string(_ key: String, _ value: String?, _ out: inout [UInt8]) {
        out += key.utf8
        if let value { JSONString.append(value, to: &out) } else { out += "null".utf8 }
    }

    private static func raw(_ key: String, _ value: String?, _ out: inout [UInt8]) {
        out += key.utf8
        out += (value ?? "null").utf8
    }

    // MARK: - Reading

    /// The entry or mapping on `line`. The entry's columns are read from its body (the truth),
    /// whose ID and kind must be the line's; any field that does not read is a fault naming it.
    static func read(_ line: [UInt8]) throws(FilmLine.Fault) -> Entry {
        guard let members = JSONSpan.members(line), let first = members.first else {
            throw FilmLine.Fault(reason: "not valid JSON")
        }
        guard members.count == 1 else {
            throw FilmLine.Fault(reason: "a TMDb line holds \(first.key) alone, not \(members.count) keys")
        }
        switch first.key {
        case entryKey: return .film(try film(line, value: first.value))
        case mappingKey: return .mapping(try mapping(line))
        default: throw FilmLine.Fault(reason: "not a TMDb line")
        }
    }

    private static func film(_ line: [UInt8], value: Range<Int>) throws(FilmLine.Fault) -> TMDbFilm {
        let fields = try decode(EntryLine.self, line).tmdb
        guard let type = TMDbMediaType(rawValue: fields.mediaType) else {
            throw FilmLine.Fault(reason: "tmdb.media_type: \(FilmLine.quoted(fields.mediaType)) is not movie or tv")
        }
        guard fields.id > 0 else { throw FilmLine.Fault(reason: "tmdb.id: \(fields.id) is not a TMDb ID") }
        let ref = TMDbRef(type, fields.id)
        let fetchedAt = try instant(fields.fetchedAt, "tmdb.fetched_at")
        guard let body = try self.body(line, in: value) else { throw FilmLine.Fault(reason: "no tmdb.body") }
        try check(body, is: ref)
        do {
            return try TMDbBody.film(body, ref: ref, fetchedAt: fetchedAt)
        } catch {
            throw FilmLine.Fault(reason: "tmdb.body: \(FilmLine.cut(LogText.escaped(error.description)))")
        }
    }

    private static func mapping(_ line: [UInt8]) throws(FilmLine.Fault) -> TMDbMapping {
        let fields = try decode(MappingLine.self, line).find
        guard PlainTextWorklist.isIMDbID(fields.imdbID) else {
            throw FilmLine.Fault(reason: "tmdb_find.imdb_id: \(FilmLine.quoted(fields.imdbID)) is not an IMDb ID")
        }
        let checkedAt = try instant(fields.checkedAt, "tmdb_find.checked_at")
        switch (fields.mediaType, fields.tmdbID) {
        case (nil, nil):
            return TMDbMapping(imdbID: fields.imdbID, ref: nil, checkedAt: checkedAt)
        case (let text?, let id?):
            guard let type = TMDbMediaType(rawValue: text) else {
                throw FilmLine.Fault(reason: "tmdb_find.media_type: \(FilmLine.quoted(text)) is not movie or tv")
            }
            guard id > 0 else { throw FilmLine.Fault(reason: "tmdb_find.tmdb_id: \(id) is not a TMDb ID") }
            return TMDbMapping(imdbID: fields.imdbID, ref: TMDbRef(type, id), checkedAt: checkedAt)
        default:
            throw FilmLine.Fault(
                reason: "tmdb_find.media_type and tmdb_id: one is null; both name the entry, or both are null")
        }
    }

    /// The body's bytes: the embedded object as it stands, or the bytes of an embedded string.
    private static func body(_ line: [UInt8], in value: Range<Int>) throws(FilmLine.Fault) -> [UInt8]? {
        guard let member = JSONSpan.members(line, in: value)?.last(where: { $0.key == "body" }) else { return nil }
        let bytes = Array(line[member.value])
        switch bytes.first {
        case UInt8(ascii: "{"):
            return bytes
        case UInt8(ascii: "\""):
            guard let text = try? JSONDecoder().decode(String.self, from: Data(bytes)) else {
                throw FilmLine.Fault(reason: "tmdb.body: not a JSON string")
            }
            return Array(text.utf8)
        default:
            throw FilmLine.Fault(reason: "tmdb.body: not TMDb's details (a JSON object)")
        }
    }

    /// Checks that the details in `body` are of `ref`'s kind: a film's have `title`, a series's
    /// `name` and no `title`. The ID is checked as the body is read.
    private static func check(_ body: [UInt8], is ref: TMDbRef) throws(FilmLine.Fault) {
        guard let keys = JSONSpan.members(body).map({ Set($0.map(\.key)) }) else {
            throw FilmLine.Fault(reason: "tmdb.body: not TMDb's details (a JSON object)")
        }
        let kind: TMDbMediaType? =
            keys.contains("title") ? .movie : keys.contains("name") ? .tv : nil
        guard let kind else { throw FilmLine.Fault(reason: "tmdb.body: the details have neither title nor name") }
        guard kind == ref.mediaType else {
            throw FilmLine.Fault(
                reason: "tmdb.body: the details are a \(kind == .movie ? "film's" : "series's"); the line says \(ref)")
        }
    }

    private static func instant(_ text: String, _ field: String) throws(FilmLine.Fault) -> Date {
        guard let date = Timestamp.parse(text) else {
            throw FilmLine.Fault(
                reason: "\(field): \(FilmLine.quoted(text)) is not an instant like 2026-11-21T02:54:22Z")
        }
        return date
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ line: [UInt8]) throws(FilmLine.Fault) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(line))
        } catch let error as DecodingError {
            throw FilmLine.Fault(reason: FilmLine.describe(error))
        } catch {
            throw FilmLine.Fault(reason: "not JSON")
        }
    }

    private struct EntryLine: Decodable {
        var tmdb: Fields

        struct Fields: Decodable {
            var mediaType: String
            var id: Int
            var fetchedAt: String

            enum CodingKeys: String, CodingKey {
                case id
                case mediaType = "media_type"
                case fetchedAt = "fetched_at"
            }
        }
    }

    private struct MappingLine: Decodable {
        var find: Fields

        enum CodingKeys: String, CodingKey { case find = "tmdb_find" }

        struct Fields: Decodable {
            var imdbID: String
            var mediaType: String?
            var tmdbID: Int?
            var checkedAt: String

            enum CodingKeys: String, CodingKey {
                case imdbID = "imdb_id"
                case mediaType = "media_type"
                case tmdbID = "tmdb_id"
                case checkedAt = "checked_at"
            }
        }
    }
}
