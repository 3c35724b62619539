import CSQLite
import Foundation
import Synchronization
import Testing

extension Reliability {
    /// Three `warm` processes on one database and one key, with readers querying it all the while.
    ///
    /// Two warms name the database by its path, the third through a symbolic link; the name is
    /// resolved first, so all three take turns through the one run lock (`--wait`). The quota
    /// ledger must hold one budget across all three, and no reader or writer may ever see
    /// "database is locked".
    @Suite struct ConcurrencyTests {
        /// The test's directory and database.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"
        /// The day's budget: `--daily-limit 1000 --reserve 10` leaves 900, fewer than the IDs named.
        let usable = 900
        /// Transfers each warm keeps in flight, also the block of calls it reserves at a time.
        let inFlight = 4

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("concurrency")
        }

        /// Three warms taking turns, one through a symlink, with a reader thread and report commands throughout.
        @Test func threeWarmsAndTwoReadersShareOneBudgetFetchNoIDTwiceAndNeverSeeALock() async throws {
            try await offThePool {
                let ids = GeneratedIDs.first(1_501)
                let standIn = try StandInProcess(arguments: ["--generate", "1501", "--latency-ms", "10"], corpus: nil)
                let alias = scratch.dir + "/alias.sqlite"
                try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: scratch.db)
                func arguments(_ database: String, _ worklist: String) -> [String] {
                    [
                        "warm", "--db", database, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight",
                        "\(inFlight)", "--daily-limit", "1000", "--reserve", "10", "--wait", "--log-level", "info",
                        worklist,
                    ]
                }
                let environment = ["OMDB_API_KEY": key]

                // One call first, so the file exists in WAL mode before the readers open it.
                let seed = try BuiltBinaries.run(
                    "filmcache", arguments(scratch.db, try scratch.worklist("seed.txt", [ids[1_500]])),
                    environment: environment)
                #expect(seed.status == 0, "\(seed.stderr)")

                // a and b overlap by 300 IDs; c is disjoint and goes through a symlink; all three share one lock.
                let lists = [
                    (scratch.db, try scratch.worklist("a.txt", ids[0..<600])),
                    (scratch.db, try scratch.worklist("b.txt", ids[300..<900])),
                    (alias, try scratch.worklist("c.txt", ids[900..<1_500])),
                ]
                let reader = ReliabilityReader(path: scratch.db)
                let reports = ReliabilityReportLoop(
                    database: scratch.db, worklist: lists[0].1, environment: environment)
                reader.start()
                reports.start()
                let runs = try lists.map {
                    try RunningBinary("filmcache", arguments($0.0, $0.1), environment: environment)
                }
                let outputs = runs.map { $0.wait(timeout: 120) }
                let seen = reader.stop()
                let reported = reports.stop()

                for (index, out) in outputs.enumerated() {
                    #expect(out.status == 0 || out.status == 75, "warm \(index): \(out.stderr.suffix(2_000))")
                    #expect(
                        !out.stderr.contains("locked") && !out.stderr.contains("busy"), "warm \(index): \(out.stderr)")
                    #expect(!out.stderr.contains("filmcache:"), "warm \(index) failed: \(out.stderr)")
                }
                #expect(outputs.contains { $0.stdout.contains("stopped early") }, "the budget ran out for someone")
                let served = try standIn.requestCount()
                let ledger = Int(try scratch.sqlite("SELECT sum(used) FROM quota_ledger")) ?? -1
                #expect(ledger == served, "every call counted once, across three processes")
                #expect(served <= usable, "the budget holds across all three warms: \(served) of \(usable)")
                #expect(served >= usable - 3 * inFlight, "and is spent, less at most one unsent block per warm")
                let answered = Set(
                    try scratch.column("SELECT imdb_id FROM films UNION ALL SELECT imdb_id FROM lookups"))
                #expect(try scratch.sqlite("SELECT count(*) FROM lookups") == "0")
                #expect(answered.count == served, "no ID fetched twice: \(served) calls for \(answered.count) IDs")
                #expect(try scratch.sqlite("PRAGMA integrity_check") == "ok")
                // Run in turn, the first warm finishes its 600 IDs (at 10 ms a call, 4 at a time, that takes
                // 1.5 s) before the budget binds; only one is cut short: the warm through the link took the
                // same lock as the others (one database, one name) and waited its turn.
                let cutShort = try scratch.sqlite(
                    "SELECT count(*) FROM runs WHERE considered = 600 AND fetched BETWEEN 1 AND 599")
                #expect(cutShort == "1", "the warm through the link waited for the lock like the others")

                #expect(seen.errors.isEmpty, "the reader: \(seen.errors.prefix(3))")
                #expect(seen.reads > 10 && seen.counts.count > 2, "the reader ran throughout: \(seen.reads) reads")
                #expect(seen.counts == seen.counts.sorted(), "the row count never goes back: \(seen.counts)")
                #expect(seen.badRows == 0, "every row read is a whole film")
                #expect(seen.mostCallsCounted <= usable, "the budget held at every moment: \(seen.mostCallsCounted)")
                #expect(reported.runs > 0, "quota and plan ran during the warms")
                #expect(reported.failures.isEmpty, "quota and plan beside the warms: \(reported.failures.prefix(3))")
            }
        }
    }
}

/// A connection on its own thread that reads the cache in a loop, as an app sharing it would.
///
/// Its one statement, prepared once, reads films and ledger from a single snapshot. It sets no busy
/// timeout: in WAL mode a reader must never be refused, however busy the writers are.
final class ReliabilityReader: @unchecked Sendable {
    /// What the reader saw.
    struct Seen {
        /// Reads completed.
        var reads = 0
        /// Each distinct film count seen, in order.
        var counts: [Int] = []
        /// Rows that were not whole films.
        var badRows = 0
        /// The most calls the ledger held (sent and reserved) at any read.
        var mostCallsCounted = 0
        /// SQLite's messages for any read that failed.
        var errors: [String] = []
    }

    private static let sql = """
        SELECT (SELECT count(*) FROM films),
               (SELECT count(*) FROM films WHERE title IS NULL OR instr(raw_json, imdb_id) = 0),
               (SELECT coalesce(sum(used), 0) FROM quota_ledger)
        """
    private let path: String
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var seen = Seen()

    /// A reader of the database at `path`; nothing happens until `start()`.
    init(path: String) { self.path = path }

    /// Starts reading on a new thread.
    func start() {
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            var db: OpaquePointer?
            var statement: OpaquePointer?
            defer {
                sqlite3_finalize(statement)
                sqlite3_close(db)
            }
            guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
                sqlite3_prepare_v3(db, Self.sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK
            else {
                seen.errors.append("open: " + String(cString: sqlite3_errmsg(db)))
                return
            }
            while !stopped.load(ordering: .relaxed) {
                if sqlite3_step(statement) == SQLITE_ROW {
                    let films = Int(sqlite3_column_int64(statement, 0))
                    seen.reads += 1
                    if seen.counts.last != films { seen.counts.append(films) }
                    seen.badRows += Int(sqlite3_column_int64(statement, 1))
                    seen.mostCallsCounted = max(seen.mostCallsCounted, Int(sqlite3_column_int64(statement, 2)))
                } else {
                    seen.errors.append(String(cString: sqlite3_errmsg(db)))
                }
                sqlite3_reset(statement)
                usleep(2_000)
            }
        }
    }

    /// Stops the loop and returns what it saw.
    func stop() -> Seen {
        stopped.store(true, ordering: .relaxed)
        done.wait()
        return seen
    }
}

/// `filmcache quota --json` and `filmcache plan --json` run in turn in a loop, as an operator would.
final class ReliabilityReportLoop: @unchecked Sendable {
    /// How many reports ran, and what went wrong with any of them.
    struct Reported {
        /// Commands run.
        var runs = 0
        /// Each failed command's status and standard error.
        var failures: [String] = []
    }

    private let arguments: [[String]]
    private let environment: [String: String]
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private var reported = Reported()

    /// Reports on `database`; `plan` reads `worklist`.
    init(database: String, worklist: String, environment: [String: String]) {
        arguments = [
            ["quota", "--db", database, "--json"],
            ["plan", "--db", database, "--json", "--daily-limit", "1000", "--reserve", "10", worklist],
        ]
        self.environment = environment
    }

    /// Starts running reports on a new thread.
    func start() {
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            while !stopped.load(ordering: .relaxed) {
                let command = arguments[reported.runs % arguments.count]
                let out = try? BuiltBinaries.run("filmcache", command, environment: environment)
                reported.runs += 1
                if out?.status != 0 || out?.stderr.isEmpty == false {
                    reported.failures.append("\(command[0]): \(out?.status ?? -1) \(out?.stderr ?? "did not run")")
                }
            }
        }
    }

    /// Stops the loop after the report under way and returns the tally.
    func stop() -> Reported {
        stopped.store(true, ordering: .relaxed)
        done.wait()
        return reported
    }
}
