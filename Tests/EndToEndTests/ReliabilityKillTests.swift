import Foundation
import OMDbStandIn
import SplitMix
import Testing

extension Reliability {
    /// `warm` killed with SIGKILL at random moments, again and again, on one database.
    ///
    /// A kill can land anywhere: while the schema is created, while the plan is read, between calls,
    /// in the middle of a batch commit. Whatever it hits, the database must stay intact, no committed
    /// film may disappear, the ledger may over-count but never under-count, and the next run must not
    /// be blocked by the dead run's lock.
    @Suite struct KillTests {
        /// The cache the kills hit.
        let cache: CacheDatabase
        /// A key the stand-in accepts.
        let key = "test-key-e2e"
        /// Films in the generated corpus, all named by the worklist: more than the short runs can fetch.
        let films: Int
        /// Runs killed before the one left to finish.
        let iterations: Int
        /// The most calls a run makes before its kill.
        let mostCalls: Int

        /// Twenty kills on a fresh SQLite file.
        init() throws {
            self.init(
                try CacheDatabase(.sqlite, in: ReliabilityScratch("kill")), films: 14_000, iterations: 20,
                mostCalls: 700)
        }

        /// `iterations` kills, each after at most `mostCalls` calls, of warms of `films` films into `cache`.
        init(_ cache: CacheDatabase, films: Int, iterations: Int, mostCalls: Int) {
            self.cache = cache
            self.films = films
            self.iterations = iterations
            self.mostCalls = mostCalls
        }

        /// Twenty warms killed at seeded random moments, each checked, then one left to finish.
        @Test func killedTwentyTimesAtRandomMomentsItLosesNoCommittedRowAndNeverUndercounts() async throws {
            try await offThePool { try killLoop() }
        }

        /// Whether the cache holds more than `count` films (false while it has no schema yet).
        func committedMore(than count: Int) throws -> Bool {
            try cache.hasSchema() && cache.int("SELECT count(*) FROM films") > count
        }

        /// The kills, each checked, then a run left alone to finish the list.
        ///
        /// On SQLite each dead run leaves its lock file behind, which must be no obstacle, and the file
        /// must pass `PRAGMA integrity_check`. On PostgreSQL there is no run lock; each dead run leaves
        /// claims instead, with 2 s leases here, which the next runs must come back to.
        func killLoop() throws {
            let standIn = try StandInProcess(
                arguments: ["--generate", "\(films)", "--latency-ms", "2"], corpus: nil)
            let ids = GeneratedIDs.first(films)
            let worklist = try cache.scratch.worklist("generated.txt", ids)
            let arguments =
                [
                    "warm", "--db", cache.argument, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight",
                    "8", "--daily-limit", "1000000", "--reserve", "0", worklist,
                ] + (cache.backend == .postgresql ? ["--claim-lease", "2s"] : [])
            let environment = cache.environment(["OMDB_API_KEY": key])
            let sqlite = cache.backend == .sqlite
            var rng = SplitMix64(seed: 0x4B11_1E55)
            var committed = Set<String>()
            var grew = 0
            var staleLocks = 0
            var moments: [String] = []
            // The ledger and the stand-in's count after the last run: each run's own calls are checked
            // against what the ledger grew by in that run, so an earlier run's unsent reservations (an
            // over-count a kill may leave) cannot hide a later one's under-count.
            var counted = (ledger: 0, served: 0)
            for iteration in 1...iterations {
                // The moment is measured in progress, not time, so that the runs leave work over on a fast
                // machine as on a slow one: after 0 to `mostCalls` of this run's calls (0: during start-up,
                // the schema's creation included) and a further 0 to 30 ms.
                let calls = rng.int(in: 0...mostCalls)
                let jitter = rng.int(in: 0...30)
                moments.append("\(calls)+\(jitter)ms")
                let before = try standIn.requestCount()
                let run = try BackgroundRun("filmcache", arguments, environment: environment)
                let deadline = Date().addingTimeInterval(60)
                try waitFor("\(calls) calls of this run", every: 0.005, while: run.isRunning, ifNotMet: .returnFalse) {
                    try standIn.requestCount() - before >= calls
                }
                // Every third kill also waits for this run's first commit, so that some kills surely land
                // after one, wherever a loaded machine moves the random moments (within the same minute).
                if iteration % 3 == 0 {
                    try waitFor(
                        "this run's first commit", seconds: deadline.timeIntervalSinceNow, every: 0.01,
                        while: run.isRunning, ifNotMet: .returnFalse
                    ) { try committedMore(than: committed.count) }
                }
                Thread.sleep(forTimeInterval: Double(jitter) / 1_000)
                run.kill()
                let out = run.wait()
                let context = "iteration \(iteration), killed after \(moments.last ?? "")"
                #expect(out.status == SIGKILL, "the run was still working when killed (\(context)): \(out.stderr)")
                if sqlite {
                    let lock = try? String(contentsOfFile: cache.argument + ".lock", encoding: .utf8)
                    if lock == "\(run.pid)\n" { staleLocks += 1 }
                    #expect(try cache.query("PRAGMA integrity_check") == "ok", "\(context)")
                }
                #expect(
                    out.status != 75 || !out.stderr.contains("another warm holds"), "a stale lock blocked: \(context)")
                #expect(
                    !out.stderr.contains("filmcache:"), "the run failed before the kill (\(context)): \(out.stderr)")

                // A kill before the schema's first commit leaves none; the next run creates it.
                let schema = try cache.hasSchema()
                #expect(schema || committed.isEmpty, "the schema stays once anything was committed: \(context)")
                let films = schema ? Set(try cache.column("SELECT imdb_id FROM films")) : []
                let lost = committed.subtracting(films)
                #expect(lost.isEmpty, "\(lost.count) committed films gone after \(context)")
                if films.count > committed.count { grew += 1 }
                committed = films
                let ledger = schema ? try cache.ledgerCalls() : 0
                let served = try standIn.requestCount()
                #expect(
                    ledger - counted.ledger >= served - counted.served,
                    """
                    the ledger grew by \(ledger - counted.ledger), never less than the \(served - counted.served) \
                    calls served (\(ledger) and \(served) in all); \(context)
                    """)
                counted = (ledger, served)
            }
            if sqlite {
                #expect(staleLocks >= iterations / 2, "the dead runs' lock files named them, and were no obstacle")
            }
            #expect(grew >= 2, "kills landed mid-fetch after commits, not only at start-up (moments: \(moments))")
            #expect(committed.count < films, "work was left for the final run")

            // A run left alone finishes the list, whatever the kills left behind.
            try standIn.setBehaviour("latency-ms=0")
            let final = try BuiltBinaries.run(
                "filmcache", arguments + ["--max-in-flight", "16"], environment: environment)
            #expect(final.status == 0, "\(final.stderr.suffix(2_000))")
            #expect(!final.stderr.contains("another warm holds"))
            let stored = Set(try cache.column("SELECT imdb_id FROM films"))
            #expect(stored == Set(ids), "every ID is stored (\(stored.count) of \(films))")
            #expect(try cache.query("SELECT count(*) FROM lookups") == "0")
            let (ledger, served) = (try cache.ledgerCalls(), try standIn.requestCount())
            #expect(ledger - counted.ledger >= served - counted.served, "the final run's calls are all counted")
            // Every dead run that got as far as recording itself is closed as killed; none is left open.
            #expect(try cache.int("SELECT count(*) FROM runs WHERE finished_at IS NULL") == 0)
            #expect(
                try cache.column("SELECT DISTINCT outcome FROM runs WHERE id < (SELECT max(id) FROM runs)")
                    .allSatisfy { $0 == "killed" })
            if sqlite {
                #expect(try cache.query("PRAGMA integrity_check") == "ok")
                let lock = try String(contentsOfFile: cache.argument + ".lock", encoding: .utf8)
                #expect(Int32(lock.trimmingCharacters(in: .whitespacesAndNewlines)) != nil, "the lock file names a pid")
            }
        }
    }
}
