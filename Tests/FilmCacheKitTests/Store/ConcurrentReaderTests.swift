import CSQLite
import Foundation
import OMDbStandIn
import Synchronization
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// An app reading `films` while a warm writes it: every read sees whole batches, never waits for long.
@Suite struct ConcurrentReaderTests {
    let dir = TemporaryDirectory()

    @Test func aReaderSeesWholeBatchesAndValidRowsThroughoutAWarm() async throws {
        let count = 3_000
        let batchSize = 100
        let generator = CorpusGenerator(seed: 11)
        let server = OMDbStandInServer(
            configuration: StandInConfiguration(
                apiKeys: ["k"], corpus: FilmCorpus(generatedCount: count, seed: 11), behaviour: StandInBehaviour()))
        let port = try server.start()
        defer { server.stop() }
        let worklist = dir.write("ids.txt", (0..<count).map { generator.imdbID(at: $0) }.joined(separator: "\n"))
        let path = dir.file("cache.sqlite")
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        var configuration = WarmConfiguration(databasePath: path, worklists: [worklist], apiKey: APIKey("k")!)
        configuration.baseURL = "http://127.0.0.1:\(port)/"
        configuration.rate = 0
        configuration.maxInFlight = 8
        configuration.dailyLimit = 10_000
        configuration.batchSize = batchSize
        // Batches commit by count only here: a commit by age would cut a partial batch on a slow machine.
        configuration.commitInterval = .seconds(3600)
        var options = CurlMultiTransport.Options()
        options.maxInFlight = 8
        let transport = CurlMultiTransport(options: options)
        defer { transport.shutdown() }

        let reader = Reader(path: path)
        reader.start()
        let summary = try await WarmJob(
            configuration: configuration, store: SQLiteBackend(store: store), transport: transport,
            time: .system, logger: SampleFilms.logger
        ).run()
        let seen = reader.stop()

        #expect(summary.fetched == count)
        #expect(seen.errors.isEmpty, "\(seen.errors.prefix(3))")
        #expect(seen.reads > 10, "the reader ran throughout")
        #expect(seen.counts.count > 2, "the reader saw the warm in progress: \(seen.counts)")
        #expect(seen.counts == seen.counts.sorted(), "the row count never goes back")
        // A batch holds at least `batchSize` results (more when results arrive while the previous
        // one commits) except the last: between two counts read, whole batches, never fewer rows.
        let distinct = Array(Set(seen.counts)).sorted()
        let steps = zip(distinct, distinct.dropFirst()).filter { $1 != count }.map { $1 - $0 }
        #expect(
            (distinct.first { $0 > 0 && $0 != count } ?? batchSize) >= batchSize
                && steps.allSatisfy { $0 >= batchSize },
            "every read sees whole batches: \(distinct)")
        #expect(seen.badRows == 0, "every row read is a whole film")
        print("concurrent reader: \(seen.reads) reads, slowest \(Int(seen.slowest * 1_000)) ms")
    }

    /// A second connection on its own thread, as another process would hold it.
    final class Reader: @unchecked Sendable {
        struct Seen {
            var reads = 0
            var counts: [Int] = []
            var badRows = 0
            var errors: [String] = []
            var slowest: TimeInterval = 0
        }

        let path: String
        let stopped = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        var seen = Seen()

        init(path: String) { self.path = path }

        func start() {
            Thread.detachNewThread { [self] in
                defer { done.signal() }
                var db: OpaquePointer?
                guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
                    seen.errors.append("open failed")
                    return
                }
                defer { sqlite3_close(db) }
                while !stopped.load(ordering: .relaxed) {
                    let started = Date()
                    // One read transaction: the count and the row check see the same snapshot.
                    guard query(db, "BEGIN") != nil else { break }
                    let films = query(db, "SELECT count(*) FROM films")
                    let bad = query(
                        db,
                        "SELECT count(*) FROM films WHERE title IS NULL OR instr(raw_json, imdb_id) = 0"
                            + " OR fetched_at IS NULL OR data_version < 1")
                    _ = query(db, "COMMIT")
                    seen.slowest = max(seen.slowest, Date().timeIntervalSince(started))
                    if let films, let bad {
                        seen.reads += 1
                        if seen.counts.last != films { seen.counts.append(films) }
                        seen.badRows += bad
                    }
                    usleep(2_000)
                }
            }
        }

        /// Runs `sql`, returning the first column of its first row (0 when it returns none), or `nil` on error.
        func query(_ db: OpaquePointer?, _ sql: String) -> Int? {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
                seen.errors.append(String(cString: sqlite3_errmsg(db)))
                return nil
            }
            defer { sqlite3_finalize(statement) }
            switch sqlite3_step(statement) {
            case SQLITE_ROW: return Int(sqlite3_column_int64(statement, 0))
            case SQLITE_DONE: return 0
            default:
                seen.errors.append(String(cString: sqlite3_errmsg(db)))
                return nil
            }
        }

        func stop() -> Seen {
            stopped.store(true, ordering: .relaxed)
            done.wait()
            return seen
        }
    }
}
