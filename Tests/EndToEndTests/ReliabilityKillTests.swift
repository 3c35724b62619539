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
        /// The test's directory and database.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"
        /// Films in the generated corpus, all named by the worklist: more than twenty short runs can fetch.
        static let films = 14_000
        /// Runs killed before the one left to finish.
        static let iterations = 20

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("kill")
        }

        /// Twenty warms killed at seeded random moments, each checked, then one left to finish.
        @Test func killedTwentyTimesAtRandomMomentsItLosesNoCommittedRowAndNeverUndercounts() async throws {
            try await offThePool {
                let standIn = try StandInProcess(
                    arguments: ["--generate", "\(Self.films)", "--latency-ms", "2"], corpus: nil)
                let ids = GeneratedIDs.first(Self.films)
                let worklist = try scratch.worklist("generated.txt", ids)
                let arguments = [
                    "warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight", "8",
                    "--daily-limit", "1000000", "--reserve", "0", worklist,
                ]
                var rng = SplitMix64(seed: 0x4B11_1E55)
                var committed = Set<String>()
                var grew = 0
                var staleLocks = 0
                var moments: [String] = []
                for iteration in 1...Self.iterations {
                    // The moment is measured in progress, not time, so that twenty runs leave work over on a
                    // fast machine as on a slow one: after 0 to 700 of this run's calls (0: during start-up,
                    // the schema's creation included) and a further 0 to 30 ms.
                    let calls = rng.int(in: 0...700)
                    let jitter = rng.int(in: 0...30)
                    moments.append("\(calls)+\(jitter)ms")
                    let before = try standIn.requestCount()
                    let run = try BackgroundRun("filmcache", arguments, environment: ["OMDB_API_KEY": key])
                    let deadline = Date().addingTimeInterval(60)
                    while try standIn.requestCount() - before < calls, run.isRunning, Date() < deadline {
                        Thread.sleep(forTimeInterval: 0.005)
                    }
                    Thread.sleep(forTimeInterval: Double(jitter) / 1_000)
                    run.kill()
                    let out = run.wait()
                    let context = "iteration \(iteration), killed after \(moments.last ?? "")"
                    #expect(out.status == SIGKILL, "the run was still working when killed (\(context)): \(out.stderr)")
                    let lock = try? String(contentsOfFile: scratch.db + ".lock", encoding: .utf8)
                    if lock == "\(run.pid)\n" { staleLocks += 1 }
                    #expect(
                        out.status != 75 || !out.stderr.contains("another warm holds"),
                        "a stale lock blocked: \(context)")
                    #expect(
                        !out.stderr.contains("filmcache:"), "the run failed before the kill (\(context)): \(out.stderr)"
                    )

                    #expect(try scratch.sqlite("PRAGMA integrity_check") == "ok", "\(context)")
                    // A kill before the schema's first commit leaves an empty file; the next run creates it.
                    let tables = "SELECT count(*) FROM sqlite_master WHERE name IN ('films', 'quota_ledger')"
                    let schema = try scratch.sqlite(tables) == "2"
                    #expect(schema || committed.isEmpty, "the schema stays once anything was committed: \(context)")
                    let films = schema ? Set(try scratch.column("SELECT imdb_id FROM films")) : []
                    let lost = committed.subtracting(films)
                    #expect(lost.isEmpty, "\(lost.count) committed films gone after \(context)")
                    if films.count > committed.count { grew += 1 }
                    committed = films
                    let ledger =
                        schema ? Int(try scratch.sqlite("SELECT coalesce(sum(used), 0) FROM quota_ledger")) ?? -1 : 0
                    let served = try standIn.requestCount()
                    #expect(
                        ledger >= served,
                        "the ledger (\(ledger)) never counts fewer calls than served (\(served)); \(context)")
                }
                #expect(staleLocks >= Self.iterations / 2, "the dead runs' lock files named them, and were no obstacle")
                #expect(grew >= 2, "kills landed mid-fetch after commits, not only at start-up (moments: \(moments))")
                #expect(committed.count < Self.films, "work was left for the final run")

                // A run left alone finishes the list, whatever the kills left behind.
                try standIn.setBehaviour("latency-ms=0")
                let final = try BuiltBinaries.run(
                    "filmcache", arguments + ["--max-in-flight", "16"], environment: ["OMDB_API_KEY": key])
                #expect(final.status == 0, "\(final.stderr.suffix(2_000))")
                #expect(!final.stderr.contains("another warm holds"))
                #expect(try scratch.sqlite("PRAGMA integrity_check") == "ok")
                let films = Set(try scratch.column("SELECT imdb_id FROM films"))
                #expect(films == Set(ids), "every ID is stored (\(films.count) of \(Self.films))")
                #expect(try scratch.sqlite("SELECT count(*) FROM lookups") == "0")
                let ledger = Int(try scratch.sqlite("SELECT sum(used) FROM quota_ledger")) ?? -1
                #expect(ledger >= (try standIn.requestCount()))
                let lock = try String(contentsOfFile: scratch.db + ".lock", encoding: .utf8)
                #expect(Int32(lock.trimmingCharacters(in: .whitespacesAndNewlines)) != nil, "the lock file names a pid")
            }
        }
    }
}
