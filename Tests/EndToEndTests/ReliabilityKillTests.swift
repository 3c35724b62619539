import Foundation
import OMDbStandIn
import Testing

/// `warm` killed with SIGKILL at random moments, again and again, on one database.
///
/// A kill can land anywhere: while the schema is created, while the plan is read, between calls,
/// in the middle of a batch commit. Whatever it hits, the database must stay intact, no committed
/// film may disappear, the ledger may over-count but never under-count, and the next run must not
/// be blocked by the dead run's lock.
@Suite(.serialized) struct ReliabilityKillTests {
    /// The test's directory and database.
    let scratch: ReliabilityScratch
    /// A key the stand-in accepts.
    let key = "test-key-e2e"
    /// Films in the generated corpus, all named by the worklist: more than twenty short runs can fetch.
    static let films = 12_000
    /// Runs killed before the one left to finish.
    static let iterations = 20

    /// A fresh directory.
    init() throws {
        scratch = try ReliabilityScratch("kill")
    }

    /// Twenty warms killed after a seeded random 20 to 900 ms, each checked, then one left to finish.
    @Test func killedTwentyTimesAtRandomMomentsItLosesNoCommittedRowAndNeverUndercounts() throws {
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
        var delays: [Int] = []
        for iteration in 1...Self.iterations {
            let delay = rng.int(in: 20...900)
            delays.append(delay)
            let run = try BackgroundRun("filmcache", arguments, environment: ["OMDB_API_KEY": key])
            Thread.sleep(forTimeInterval: Double(delay) / 1_000)
            run.kill()
            let out = run.wait()
            let context = "iteration \(iteration), killed after \(delay) ms"
            #expect(out.status == SIGKILL, "the run was still working when killed (\(context)): \(out.stderr)")
            let lock = try? String(contentsOfFile: scratch.db + ".lock", encoding: .utf8)
            if lock == "\(run.pid)\n" { staleLocks += 1 }
            #expect(out.status != 75 || !out.stderr.contains("another warm holds"), "a stale lock blocked: \(context)")
            #expect(!out.stderr.contains("filmcache:"), "the run failed before the kill (\(context)): \(out.stderr)")

            #expect(try scratch.sqlite("PRAGMA integrity_check") == "ok", "\(context)")
            let films = Set(try scratch.column("SELECT imdb_id FROM films"))
            let lost = committed.subtracting(films)
            #expect(lost.isEmpty, "\(lost.count) committed films gone after \(context)")
            if films.count > committed.count { grew += 1 }
            committed = films
            let ledger = Int(try scratch.sqlite("SELECT coalesce(sum(used), 0) FROM quota_ledger")) ?? -1
            let served = try standIn.requestCount()
            #expect(
                ledger >= served, "the ledger (\(ledger)) never counts fewer calls than served (\(served)); \(context)")
        }
        #expect(staleLocks >= Self.iterations / 2, "the dead runs' lock files named them, and were no obstacle")
        #expect(grew >= 2, "kills landed mid-fetch after commits, not only at start-up (delays \(delays) ms)")
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
