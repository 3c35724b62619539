import Foundation
import Logging
import SplitMix
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// Export from a real SQLite file and import into another: the same films, in both forms.
@Suite struct ExportImportTests {
    let dir = TemporaryDirectory()
    let lines = LineCollector()

    var logger: Logger {
        var logger = Logger(label: "filmcache") { [lines] in
            LineLogHandler(label: $0, format: .logfmt, now: WallClock.system.now, write: lines.write)
        }
        logger.logLevel = .info
        return logger
    }

    /// A cache holding the OMDb samples and `count` generated films, and the films as stored.
    func filledCache(_ count: Int = 200) throws -> (path: String, films: [IMDBFilm]) {
        var random = SplitMix64(seed: 7)
        let films =
            try TransferFilms.samples() + (0..<count).map { TransferFilms.stored(TransferFilms.generated($0, &random)) }
        let path = dir.file("source.sqlite")
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        try store.write(WriteBatch(films: films))
        return (path, films)
    }

    /// Exports `path` in `format` into a file and returns its path.
    func export(_ path: String, _ format: ExportFormat, since: Date? = nil) throws -> String {
        let out = dir.file("export.\(format.rawValue)")
        let descriptor = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(descriptor) }
        _ = try CacheExport(path: path).write(format, since: since, to: descriptor)
        return out
    }

    func importer(_ store: CacheStore, batchSize: Int = 1000) -> FilmImport {
        FilmImport(
            store: SQLiteBackend(store: store), now: Date(timeIntervalSince1970: 1_800_000_000), logger: logger,
            batchSize: batchSize)
    }

    @Test("Export then import into an empty cache gives every film back", arguments: ExportFormat.allCases)
    func roundTrip(_ format: ExportFormat) async throws {
        let (path, films) = try filledCache()
        let file = try export(path, format)
        let target = try CacheStore(path: dir.file("target.sqlite"), logger: SampleFilms.logger)
        // Small batches: several transactions, and a batch boundary inside the file.
        let tally = try await importer(target, batchSize: 64).read(FilmImport.open(file))
        #expect(tally.read == films.count && tally.counts.added == films.count && tally.bad == 0, "\(lines.lines)")
        for film in films {
            #expect(try target.film(film.imdbID) == film)
            #expect(try target.film(film.imdbID)?.canonicalJSON() == film.canonicalJSON())
        }
        let again = try await importer(target).read(FilmImport.open(file))
        #expect(again.counts.kept == films.count && again.counts.added == 0 && again.counts.updated == 0)
    }

    @Test("--since keeps the films fetched at or after the instant", arguments: ExportFormat.allCases)
    func since(_ format: ExportFormat) async throws {
        let (path, films) = try filledCache()
        let since = Date(timeIntervalSince1970: 1_705_000_000)
        let target = try CacheStore(path: dir.file("target.sqlite"), logger: SampleFilms.logger)
        let tally = try await importer(target).read(FilmImport.open(export(path, format, since: since)))
        let expected = films.filter { $0.lastFetched >= since }
        #expect(tally.counts.added == expected.count && expected.count > 0 && expected.count < films.count)
        #expect(try CacheExport(path: path).count(since: since) == expected.count)
    }

    @Test("A bad line in the middle is named by file:line and skipped; the rest is imported")
    func badLineInTheMiddle() async throws {
        var text: [UInt8] = []
        SampleFilms.film("tt0000001").appendExportLine(to: &text)
        text += Array(#"{"imdbID":"tt0000002","lastFetched":"2026-01-02T03:04:05Z","dataVersion":1}"#.utf8) + [0x0A]
        text += Array("\n".utf8)
        SampleFilms.film("tt0000003").appendExportLine(to: &text)
        let file = dir.file("mixed.jsonl")
        try Data(text).write(to: URL(fileURLWithPath: file))
        let store = try CacheStore(path: dir.file("target.sqlite"), logger: SampleFilms.logger)
        let tally = try await importer(store).read(FilmImport.open(file))
        #expect(tally.read == 3 && tally.counts.added == 2 && tally.bad == 1)
        #expect(lines.lines.count == 1)
        #expect(lines.lines.first?.contains("mixed.jsonl:2: no rawJSON") == true, "\(lines.lines)")
        #expect(try store.film("tt0000002") == nil)
    }

    @Test("A CSV record with a bad field is named by the line it starts on")
    func badCSVRecord() async throws {
        let (path, _) = try filledCache(20)
        var text = try Data(contentsOf: URL(fileURLWithPath: export(path, .csv)))
        // Lines as an editor counts them: quoted fields hold LF, CR and CRLF line breaks too.
        let physicalLine =
            text.enumerated().filter { index, byte in
                byte == 0x0A ? index == 0 || text[index - 1] != 0x0D : byte == 0x0D
            }.count + 1
        text += Data(("tt0000099,Broken" + String(repeating: ",", count: FilmRow.columns.count - 2) + "\r\n").utf8)
        let file = dir.file("broken.csv")
        try text.write(to: URL(fileURLWithPath: file))
        let store = try CacheStore(path: dir.file("target.sqlite"), logger: SampleFilms.logger)
        let tally = try await importer(store).read(FilmImport.open(file))
        #expect(tally.bad == 1 && tally.counts.added == 25)
        #expect(physicalLine > 26, "quoted line breaks make records span lines")
        #expect(lines.lines.contains { $0.contains("broken.csv:\(physicalLine): no raw_json") }, "\(lines.lines)")
    }

    @Test("OMDb bodies, one a line, are normalized and stored under their own IDs")
    func omdbBodies() async throws {
        let bodies = [OMDbSamples.gladiator, OMDbSamples.episode, #"{"Response":"False","Error":"Movie not found!"}"#]
        let file = dir.write(
            "bodies.jsonl", bodies.map { $0.replacingOccurrences(of: "\n", with: "") }.joined(separator: "\n"))
        let store = try CacheStore(path: dir.file("target.sqlite"), logger: SampleFilms.logger)
        let tally = try await importer(store).read(FilmImport.open(file))
        #expect(tally.counts.added == 2 && tally.bad == 1)
        #expect(try store.film("tt0172495")?.title == "Gladiator")
        #expect(try store.film("tt1480055")?.lastFetched == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(lines.lines.contains { $0.contains("bodies.jsonl:3: an OMDb error answer") })
    }

    @Test("A file that is neither JSON Lines nor a filmcache CSV is one bad line, and nothing is stored")
    func notAnExport() async throws {
        let file = dir.write("ids.txt", "tt0172495\ntt0096697\n")
        let store = try CacheStore(path: dir.file("target.sqlite"), logger: SampleFilms.logger)
        let tally = try await importer(store).read(FilmImport.open(file))
        #expect(tally.read == 1 && tally.bad == 1 && tally.films == 0)
        #expect(lines.lines.first?.contains("ids.txt:1: not a filmcache CSV export") == true, "\(lines.lines)")
    }

    @Test("Export refuses a file that is not a cache, and never creates one")
    func exportReadsOnly() throws {
        let absent = dir.file("absent.sqlite")
        #expect(throws: StoreError.self) { try CacheExport(path: absent) }
        #expect(!FileManager.default.fileExists(atPath: absent))
        let empty = dir.write("empty.sqlite", "")
        #expect(throws: StoreError.self) { try CacheExport(path: empty) }
    }
}
