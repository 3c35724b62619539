import CSQLite
import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// The checkpoints a writer hands to a thread of its own: they still happen, the WAL still starts
/// over, and a reader holding an old snapshot or the store's close change neither.
@Suite struct CheckpointerTests {
    let dir = TemporaryDirectory()
    var path: String { dir.file("cache.sqlite") }

    /// A WAL database with one table, and its writer's connection handing checkpoints to a checkpointer.
    func writer(threshold: Int32, limit: Int32) throws -> (SQLiteConnection, Checkpointer) {
        let db = try SQLiteConnection(path: path)
        try db.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE t (x BLOB)")
        let checkpointer = try Checkpointer(path: path, logger: SampleFilms.logger, threshold: threshold, limit: limit)
        checkpointer.attach(to: db)
        return (db, checkpointer)
    }

    /// Commits one transaction of three 3,000-byte rows (three or four pages).
    func commit(_ db: SQLiteConnection) throws {
        let insert = try db.cached("INSERT INTO t VALUES (?)")
        try db.transaction { () throws(StoreError) in
            for _ in 0..<3 { try insert.run([], blob: [UInt8](repeating: 7, count: 3000), at: 1) }
        }
    }

    func size(_ file: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0
    }

    /// The largest `-wal` a WAL of `pages` pages makes: a header, then each page with its frame header.
    func walBytes(pages: Int) -> Int { 32 + pages * (4096 + 24) }

    @Test func checkpointsCopyTheWALIntoTheFileAndItStartsOverAtTheLimit() throws {
        let (db, checkpointer) = try writer(threshold: 8, limit: 32)
        var largest = 0
        for _ in 0..<150 {
            try commit(db)
            largest = max(largest, size(path + "-wal"))
        }
        checkpointer.settle()
        // 150 commits wrote 450 rows of 3,000 bytes: with no checkpoint all of them would still be in the
        // WAL, a file of 400 pages; it stays within the limit and a commit.
        #expect(largest <= walBytes(pages: 32 + 8), "the -wal reached \(largest) bytes")
        // And the rows are in the database file, copied by the checkpoints (SQLite's own is replaced).
        #expect(size(path) >= 400 * 4096, "the file holds \(size(path)) bytes")
        checkpointer.detach(from: db)
        #expect(try db.prepare("SELECT count(*) FROM t").query { $0.int(0) } == [450])
    }

    /// Below the limit only the checkpointer's own connection copies pages: they reach the file while
    /// the writer never checkpoints.
    @Test func checkpointsBelowTheLimitRunOnTheCheckpointersConnection() throws {
        let (db, checkpointer) = try writer(threshold: 8, limit: 1_000_000)
        for _ in 0..<100 { try commit(db) }
        checkpointer.settle()
        // 300 rows of 3,000 bytes: without those checkpoints the file would hold its first page only.
        #expect(size(path) >= 250 * 4096, "the file holds \(size(path)) bytes")
        checkpointer.detach(from: db)
        #expect(try db.prepare("SELECT count(*) FROM t").query { $0.int(0) } == [300])
    }

    /// A reader's old snapshot keeps the pages it reads in the WAL, which then grows; once the reader is
    /// done, the next checkpoint copies everything and the WAL starts over from its beginning.
    @Test func aReaderHoldingAnOldSnapshotDelaysTheStartOver() throws {
        let (db, checkpointer) = try writer(threshold: 8, limit: 32)
        try commit(db)
        let reader = try SQLiteConnection(path: path, readOnly: true)
        try reader.execute("BEGIN")
        #expect(try reader.prepare("SELECT count(*) FROM t").query { $0.int(0) } == [3])
        for _ in 0..<60 { try commit(db) }
        let grown = size(path + "-wal")
        #expect(grown > walBytes(pages: 32 + 8), "the reader's snapshot kept \(grown) bytes of WAL")
        #expect(try reader.prepare("SELECT count(*) FROM t").query { $0.int(0) } == [3])
        try reader.execute("COMMIT")
        // The commit after it is appended; the checkpoint it triggers copies everything, and the WAL
        // starts over: it grows no more.
        try commit(db)
        let after = size(path + "-wal")
        #expect(after <= grown + 5 * (4096 + 24))
        for _ in 0..<60 {
            try commit(db)
            #expect(size(path + "-wal") <= after)
        }
        checkpointer.detach(from: db)
        #expect(try db.prepare("SELECT count(*) FROM t").query { $0.int(0) } == [366])
    }

    /// The store's checkpoints run on their own connection, which closes first: the store's last close is
    /// still the file's last, and folds the WAL in and empties it.
    @Test func aStoreWhoseCheckpointsRanStillEmptiesItsWALWhenItCloses() throws {
        var store: CacheStore? = try CacheStore(path: path, logger: SampleFilms.logger)
        let plot = String(repeating: "A long plot. ", count: 200)
        for batch in 0..<15 {
            let films = (0..<200).map { index in
                var film = SampleFilms.film(String(format: "tt%07d", batch * 200 + index))
                film.plot = plot
                return film
            }
            try store?.write(WriteBatch(films: films))
        }
        store?.checkpointer?.settle()
        // 3,000 films of 2.6 KB or more: well over 1,000 pages, so checkpoints ran on the store's other connection.
        #expect(size(path) > 1000 * 4096, "the file holds \(size(path)) bytes")
        #expect(size(path + "-wal") > 0)
        store = nil
        #expect(size(path + "-wal") == 0)
        let reader = try CacheStore(path: path, logger: SampleFilms.logger, readOnly: true)
        #expect(try reader.filmCount() == 3000)
    }
}
