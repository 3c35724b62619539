import Foundation
import Logging
import Synchronization
import Testing

@testable import FilmCacheKit

/// TMDb's side of export and import on the memory backend: lines written by ``TMDbExport``, read
/// back by ``FilmImport`` from a real file into a second cache.
@Suite struct TMDbTransferTests {
    let dir = TemporaryDirectory()
    let lines = LineCollector()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    var logger: Logger {
        var logger = Logger(label: "filmcache") { [lines] in
            LineLogHandler(label: $0, format: .logfmt, now: WallClock.system.now, write: lines.write)
        }
        logger.logLevel = .info
        return logger
    }

    /// TMDb's details of a film, compact as TMDb sends them.
    static func movieBody(_ id: Int, imdbID: String, title: String = "Fight Club", poster: String? = "/pB8.jpg")
        -> [UInt8]
    {
        let posterJSON = poster.map { "\"\($0)\"" } ?? "null"
        return Array(
            (#"{"adult":false,"backdrop_path":"/hZk.jpg","belongs_to_collection":null,"budget":63000000,"#
                + #""genres":[{"id":18,"name":"Drama"},{"id":53,"name":"Thriller"}],"id":\#(id),"#
                + #""imdb_id":"\#(imdbID)","original_title":"\#(title)","overview":"A ticking-time-bomb \"insomniac\" \u00e9 and a slippery soap salesman.","#
                + #""popularity":61.416,"poster_path":\#(posterJSON),"release_date":"1999-10-15","runtime":139,"#
                + #""status":"Released","title":"\#(title)","vote_average":8.438,"vote_count":26280,"#
                + #""credits":{"cast":[{"name":"Edward Norton","character":"The Narrator"}]}}"#).utf8)
    }

    /// TMDb's details of a series, with `external_ids` appended.
    static func seriesBody(_ id: Int, imdbID: String) -> [UInt8] {
        Array(
            (#"{"episode_run_time":[60],"first_air_date":"2011-04-17","genres":[{"id":10765,"name":"Sci-Fi & Fantasy"}],"#
                + #""id":\#(id),"name":"Game of Thrones","original_name":"Game of Thrones","overview":"Seven noble families…","#
                + #""poster_path":"/1XS.jpg","status":"Ended","vote_average":8.4,"vote_count":21000,"#
                + #""external_ids":{"imdb_id":"\#(imdbID)","tvdb_id":121361}}"#).utf8)
    }

    /// An entry as a fetch would store it: the columns read from `body`.
    static func entry(_ ref: TMDbRef, _ body: [UInt8], fetchedAt: Date) throws -> TMDbFilm {
        try TMDbBody.film(body, ref: ref, fetchedAt: fetchedAt)
    }

    /// A cache holding two films (one with a pretty-printed body that spans lines), a series, and
    /// three mappings (one negative).
    func source() async throws -> (MemoryBackend, [TMDbFilm], [TMDbMapping]) {
        let fetched = Date(timeIntervalSince1970: 1_790_000_000)
        let pretty = Array(
            """
            {
              "id": 603,
              "imdb_id": "tt0133093",
              "title": "The Matrix",
              "poster_path": "/f89.jpg",
              "genres": [ { "id": 28, "name": "Action" } ]
            }
            """.utf8)
        let films = [
            try Self.entry(TMDbRef(.movie, 550), Self.movieBody(550, imdbID: "tt0137523"), fetchedAt: fetched),
            try Self.entry(TMDbRef(.movie, 603), pretty, fetchedAt: fetched.addingTimeInterval(60)),
            try Self.entry(TMDbRef(.tv, 1399), Self.seriesBody(1399, imdbID: "tt0944947"), fetchedAt: fetched),
        ]
        let mappings = [
            TMDbMapping(imdbID: "tt0137523", ref: TMDbRef(.movie, 550), checkedAt: fetched),
            TMDbMapping(imdbID: "tt0944947", ref: TMDbRef(.tv, 1399), checkedAt: fetched),
            TMDbMapping(imdbID: "tt9999999", ref: nil, checkedAt: fetched),
        ]
        let cache = MemoryBackend(wall: .fixed(now))
        _ = try await cache.writeTMDb(TMDbBatch(mappings: mappings, films: films))
        return (cache, films, mappings)
    }

    /// Exports `store`'s TMDb side as JSON Lines after `prefix`, into a file; returns its path and bytes.
    func exportLines(_ store: any TMDbStore, prefix: [UInt8] = [], since: Date? = nil) async throws
        -> (path: String, bytes: [UInt8], written: TMDbExport.Written)
    {
        let collected = ByteCollector()
        let written = try await TMDbExport(store: store, since: since, pageSize: 2).writeLines { bytes in
            collected.append(bytes)
        }
        let bytes = prefix + collected.bytes
        let path = dir.file("export.jsonl")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes, written)
    }

    func importer(_ target: MemoryBackend, tmdb: Bool = true, batchSize: Int = 1000) -> FilmImport {
        FilmImport(store: target, tmdb: tmdb ? target : nil, now: now, logger: logger, batchSize: batchSize)
    }

    @Test("Export then import gives every entry and mapping back, each body byte for byte")
    func roundTrip() async throws {
        let (source, films, mappings) = try await source()
        var prefix: [UInt8] = []
        SampleFilms.film("tt0137523").appendExportLine(to: &prefix)
        let (path, bytes, written) = try await exportLines(source, prefix: prefix)
        #expect(written == TMDbExport.Written(entries: 3, mappings: 3))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.split(separator: "\n").count == 7, "one line a film, an entry, a mapping")
        #expect(text.contains(#","body":{"adult":false,"#), "a compact body is embedded as it is")

        let target = MemoryBackend(wall: .fixed(now))
        // Batches of two: several transactions, a boundary inside the TMDb lines.
        let tally = try await importer(target, batchSize: 2).read(FilmImport.open(path))
        #expect(tally.bad == 0, "\(lines.lines)")
        #expect(tally.counts.added == 1 && tally.read == 7)
        #expect(tally.tmdb.entriesAdded == 3 && tally.tmdb.mappingsAdded == 3 && tally.imported == 7)
        for film in films {
            let back = try #require(try await target.tmdbFilm(film.ref))
            #expect(back.body == film.body, "\(film.ref): the body comes back byte for byte")
            #expect(back == film)
        }
        for mapping in mappings {
            #expect(try await target.tmdbMapping(mapping.imdbID) == mapping)
        }

        let again = try await importer(target).read(FilmImport.open(path))
        #expect(again.tmdb.entriesKept == 3 && again.tmdb.mappingsKept == 3)
        #expect(again.tmdb.entriesAdded == 0 && again.tmdb.entriesUpdated == 0 && again.tmdb.mappingsAdded == 0)
    }

    @Test("A cache without TMDb data exports no TMDb line")
    func nothingWithoutTMDb() async throws {
        let cache = MemoryBackend(wall: .fixed(now))
        try await cache.write(WriteBatch(films: [SampleFilms.film("tt0000001")]))
        #expect(try await !TMDbExport(store: cache).holdsAny())
        let (_, bytes, written) = try await exportLines(cache)
        #expect(bytes.isEmpty && written == TMDbExport.Written())
        let (source, _, _) = try await source()
        #expect(try await TMDbExport(store: source).holdsAny())
    }

    @Test("The newer fetched_at and checked_at win; an older line updates nothing")
    func newerWins() async throws {
        let (source, films, _) = try await source()
        let (path, _, _) = try await exportLines(source)
        let target = MemoryBackend(wall: .fixed(now))
        // The target holds Fight Club fetched later, The Matrix fetched earlier, and a later mapping.
        var later = films[0]
        later.fetchedAt = films[0].fetchedAt.addingTimeInterval(3600)
        later.body = Self.movieBody(550, imdbID: "tt0137523", title: "Fight Club (later)")
        later = try Self.entry(later.ref, later.body, fetchedAt: later.fetchedAt)
        var earlier = films[1]
        earlier.fetchedAt = films[1].fetchedAt.addingTimeInterval(-3600)
        let laterMapping = TMDbMapping(
            imdbID: "tt9999999", ref: TMDbRef(.movie, 7), checkedAt: films[0].fetchedAt.addingTimeInterval(60))
        _ = try await target.writeTMDb(TMDbBatch(mappings: [laterMapping], films: [later, earlier]))

        let tally = try await importer(target).read(FilmImport.open(path))
        #expect(tally.bad == 0)
        #expect(tally.tmdb.entriesKept == 1 && tally.tmdb.entriesUpdated == 1 && tally.tmdb.entriesAdded == 1)
        #expect(tally.tmdb.mappingsKept == 1 && tally.tmdb.mappingsAdded == 2)
        #expect(try await target.tmdbFilm(later.ref) == later)
        #expect(try await target.tmdbFilm(films[1].ref) == films[1])
        #expect(try await target.tmdbMapping("tt9999999") == laterMapping)
    }

    /// An entry line for `ref` carrying `body`, fetched at `fetchedAt`.
    static func entryLine(_ ref: String, id: Int, body: String, fetchedAt: String = "2026-10-01T00:00:00Z") -> String {
        #"{"tmdb":{"media_type":"\#(ref)","id":\#(id),"title":"x","fetched_at":"\#(fetchedAt)","body":\#(body)}}"#
    }

    @Test(
        "A bad TMDb line is named by file, line and field, skipped, and changes nothing stored",
        arguments: [
            (
                entryLine("movie", id: 551, body: String(decoding: movieBody(550, imdbID: "tt0137523"), as: UTF8.self)),
                "tmdb.body: movie:551: the details name id 550"
            ),
            (
                entryLine("tv", id: 550, body: String(decoding: movieBody(550, imdbID: "tt0137523"), as: UTF8.self)),
                "tmdb.body: the details are a film's; the line says tv:550"
            ),
            (entryLine("film", id: 550, body: "{}"), "tmdb.media_type: "),
            (#"{"tmdb":{"media_type":"movie","id":550,"body":{"id":550,"title":"x"}}}"#, "no tmdb.fetched_at"),
            (
                entryLine("movie", id: 550, body: "{}", fetchedAt: "yesterday"),
                "is not an instant like 2026-11-21T02:54:22Z"
            ),
            (entryLine("movie", id: 550, body: "[1]"), "tmdb.body: not TMDb's details"),
            (#"{"tmdb":{"media_type":"movie","id":550,"fetched_at":"2026-10-01T00:00:00Z"}}"#, "no tmdb.body"),
            (
                #"{"tmdb_find":{"imdb_id":"tt0137523","media_type":"movie","tmdb_id":null,"checked_at":"2026-10-01T00:00:00Z"}}"#,
                "tmdb_find.media_type and tmdb_id: one is null"
            ),
            (
                #"{"tmdb_find":{"imdb_id":"nm0000001","media_type":null,"tmdb_id":null,"checked_at":"2026-10-01T00:00:00Z"}}"#,
                "tmdb_find.imdb_id: "
            ),
            (#"{"tmdb_find":{"imdb_id":"tt0137523","media_type":null,"tmdb_id":null}}"#, "no tmdb_find.checked_at"),
            (
                entryLine("movie", id: 550, body: #"{"id":550,"title":"x"}"#, fetchedAt: "2099-01-01T00:00:00Z"),
                "movie:550: fetched_at 2099-01-01T00:00:00Z lies in the future"
            ),
        ])
    func badLine(_ line: String, reason: String) async throws {
        let (source, films, mappings) = try await source()
        let path = dir.file("bad.jsonl")
        var good: [UInt8] = []
        TMDbLine.appendMapping(TMDbMapping(imdbID: "tt0000002", ref: nil, checkedAt: now), to: &good)
        try Data(Array((line + "\n").utf8) + good).write(to: URL(fileURLWithPath: path))
        let tally = try await importer(source).read(FilmImport.open(path))
        #expect(tally.bad == 1 && tally.read == 2 && tally.tmdb.mappingsAdded == 1)
        let warning = try #require(lines.lines.first { $0.contains("bad.jsonl:1:") }, "\(lines.lines)")
        #expect(warning.contains(reason), "\(warning)")
        for film in films { #expect(try await source.tmdbFilm(film.ref) == film) }
        for mapping in mappings { #expect(try await source.tmdbMapping(mapping.imdbID) == mapping) }
    }

    @Test("Into a cache that keeps no TMDb entries, TMDb lines are bad lines and the films still land")
    func noTMDbStore() async throws {
        let (source, _, _) = try await source()
        var prefix: [UInt8] = []
        SampleFilms.film("tt0137523").appendExportLine(to: &prefix)
        let (path, _, _) = try await exportLines(source, prefix: prefix)
        let target = MemoryBackend(wall: .fixed(now))
        let tally = try await importer(target, tmdb: false).read(FilmImport.open(path))
        #expect(tally.counts.added == 1 && tally.bad == 6 && tally.tmdb == TMDbImportCounts())
        #expect(lines.lines.contains { $0.contains("export.jsonl:2:") && $0.contains("keeps no TMDb entries") })
    }

    @Test("--since keeps the entries fetched and mappings checked at or after the instant")
    func since() async throws {
        let (source, films, _) = try await source()
        let (_, bytes, written) = try await exportLines(source, since: films[1].fetchedAt)
        #expect(written == TMDbExport.Written(entries: 1, mappings: 0))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""id":603"#))
    }

    @Test("TMDb's CSV: the entries' columns, header first, no body")
    func csv() async throws {
        let (source, films, _) = try await source()
        let collected = ByteCollector()
        let count = try await TMDbExport(store: source).writeCSV { collected.append($0) }
        #expect(count == films.count)
        let records = String(decoding: collected.bytes, as: UTF8.self).components(separatedBy: "\r\n")
        #expect(records[0] == TMDbLine.columns.joined(separator: ","))
        #expect(
            records[1].hasPrefix("movie,550,tt0137523,Fight Club,Fight Club,\"A ticking-time-bomb \"\"insomniac\"\""))
        #expect(records[1].contains(",\"Drama, Thriller\",8.438,26280,61.416,/pB8.jpg,/hZk.jpg,,Released,"))
        #expect(records[3].hasPrefix("tv,1399,tt0944947,Game of Thrones,"))
        #expect(!collected.bytes.contains(UInt8(ascii: "{")), "no body")
    }

    @Test("A body is embedded as it is, or as a string when it spans lines; either reads back to its bytes")
    func embedding() throws {
        let compact = Self.movieBody(550, imdbID: "tt0137523")
        let pretty = Array("{\n  \"id\": 550,\r\n  \"title\": \"Fight Club\"\n}".utf8)
        for body in [compact, pretty] {
            let film = try Self.entry(TMDbRef(.movie, 550), body, fetchedAt: now)
            var line: [UInt8] = []
            TMDbLine.appendFilm(film, to: &line)
            #expect(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A && $0 != 0x0D })
            #expect(TMDbLine.isTMDbLine(line))
            #expect(try TMDbLine.read(Array(line.dropLast())) == .film(film))
            #expect(try JSONSerialization.jsonObject(with: Data(line)) is [String: Any], "the line is JSON")
        }
        var line: [UInt8] = []
        SampleFilms.film("tt0137523").appendExportLine(to: &line)
        #expect(!TMDbLine.isTMDbLine(line), "a film's line is not TMDb's")
    }
}

/// Bytes a sink was handed, in order.
final class ByteCollector: Sendable {
    private let collected = Mutex<[UInt8]>([])

    func append(_ bytes: [UInt8]) { collected.withLock { $0 += bytes } }

    var bytes: [UInt8] { collected.withLock { $0 } }
}
