import CSQLite
import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// A warm whose results can no longer be stored stops calling OMDb.
///
/// Regression: when a batch commit failed (a full disk), the failing worker ended but the others
/// went on through the whole plan, spending the day's calls on answers that were then thrown away.
@Suite struct WarmJobStoreFailureTests {
    /// The wall clock's one instant: the quota day of a run's reservations and of the checks after
    /// it, even when the suite runs across midnight.
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    /// Holds the database and the worklist.
    let dir = TemporaryDirectory()

    /// A trigger refuses every film write: the first batch commit fails, and the calls stop there.
    @Test func aFailedBatchCommitStopsEveryWorkerAndNoFurtherCallIsSpent() async throws {
        let path = dir.file("cache.sqlite")
        let ids = WarmJobTests.ids(200)
        var configuration = WarmConfiguration(
            databasePath: path, worklists: [dir.write("ids.txt", ids.joined(separator: "\n"))],
            apiKey: APIKey("test-key-1234")!)
        configuration.baseURL = "http://127.0.0.1:9/"
        configuration.rate = 0
        configuration.maxInFlight = 4
        configuration.batchSize = 8
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        // Every film write now fails, as it would on a full disk; the ledger can still be written.
        try Self.execute(
            path, "CREATE TRIGGER refuse BEFORE INSERT ON films BEGIN SELECT RAISE(ABORT, 'disk is full'); END")
        let transport = ScriptedTransport { id, _ in ScriptedTransport.film(id) }
        let job = WarmJob(
            configuration: configuration, store: SQLiteBackend(store: store), transport: transport,
            time: TimeSource(clock: ContinuousClock(), wall: .fixed(Self.now)), logger: SampleFilms.logger)

        await #expect {
            try await job.run()
        } throws: { error in
            guard case WarmError.store = error else { return false }
            return "\(error)".contains("disk is full")
        }
        let requested = transport.requested.count
        // The batch that failed, the next one filling while it committed (a commit runs beside the
        // fetches; at a real rate limit few calls fit in one), plus per worker the call it had in
        // flight and at most one it took before the failure reached it.
        #expect(
            requested <= 2 * configuration.batchSize + 2 * configuration.maxInFlight,
            "\(requested) calls of \(ids.count)")
        let used = try store.ledger(key: configuration.apiKey.fingerprint, day: QuotaDay(containing: Self.now))?.used
        #expect(used == requested, "every call sent is counted and unsent reservations are given back")
        #expect(try store.filmCount() == 0)
    }

    /// Runs `sql` on its own connection to the database at `path`.
    static func execute(_ path: String, _ sql: String) throws {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open(path, &db) == SQLITE_OK, sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw StoreError.failed(
                database: path, message: String(cString: sqlite3_errmsg(db)), code: "SQLite code \(sqlite3_errcode(db))"
            )
        }
    }
}
