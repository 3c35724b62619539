import Foundation
import PostgresScratch
import Testing

/// The real binary when its PostgreSQL server goes away mid-run: restarted, frozen for a moment, or
/// frozen for good (a host that hangs or is cut off answers nothing and resets nothing). A warm
/// rides out what passes, stops with 75 on what does not, never hangs, and the ledger is never
/// under the calls sent.
///
/// Each test has a server of its own: restarting or freezing the shared one would fail the tests
/// that run beside these.
@Suite(.serialized, .timeLimit(.minutes(5))) final class PostgresOutageEndToEndTests: Sendable {
    let server: ScratchPostgres
    let scratch: ReliabilityScratch
    let ids = GeneratedIDs.first(600)

    init() async throws {
        (server, scratch) = try await offThePool { (try ScratchPostgres(), try ReliabilityScratch("pg-outage")) }
    }

    deinit { server.remove() }

    /// The password reaches the binary only through `PGPASSWORD`.
    var environment: [String: String] { ["OMDB_API_KEY": "demo", "PGPASSWORD": server.password] }

    /// The `Int` a one-value query on `database` gives.
    func count(_ database: String, _ query: String) throws -> Int {
        Int(try server.sql(query, database: database).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// A warm of the 600 IDs into a new database, started, with ten-minute claim leases (so that a
    /// warm after it finishes in time only if the server freed what this one held when its session
    /// ended); returns once it has stored `films` films. The stand-in's latency keeps the rest of the
    /// work long (at 200 ms, four at a time: half a minute) however slow the machine, until the test
    /// lowers it.
    func warmUnderWay(until films: Int, standIn: StandInProcess) throws -> (RunningBinary, String) {
        let database = try server.createDatabase()
        let warm = try RunningBinary(
            "filmcache",
            [
                "warm", "--db", server.url(database: database), "--base-url", standIn.baseURL, "--rate", "0",
                "--max-in-flight", "4", "--claim-lease", "10m", "--no-progress", try scratch.worklist("w.txt", ids),
            ], environment: environment)
        try waitFor("\(films) films stored", ifNotMet: .returnFalse) {
            ((try? count(database, "SELECT count(*) FROM films")) ?? 0) >= films
        }
        return (warm, database)
    }

    /// The ledger covers every call the stand-in answered, and the next warm finishes the list at
    /// once, though the claims of a warm that could not release them have ten minutes to run: its
    /// session ended (with the server's restart, or its exit), and its claims with it.
    func expectLedgerCoversCallsAndTheNextWarmFinishes(_ database: String, standIn: StandInProcess) throws {
        let served = try standIn.requestCount()
        let ledger = try count(database, "SELECT coalesce(sum(used), 0) FROM quota_ledger")
        #expect(ledger >= served, "ledger \(ledger) under the \(served) calls served")
        let again = try BuiltBinaries.run(
            "filmcache",
            [
                "warm", "--db", server.url(database: database), "--base-url", standIn.baseURL, "--rate", "0",
                "--claim-lease", "10m", "--no-progress", try scratch.worklist("w.txt", ids),
            ], environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try count(database, "SELECT count(*) FROM films") == 600)
        #expect(try count(database, "SELECT count(*) FROM runs WHERE finished_at IS NULL") == 0)
    }

    @Test func aServerRestartMidRunEndsCleanlyAndTheLedgerCoversEveryCall() async throws {
        try await offThePool {
            let standIn = try StandInProcess(arguments: ["--generate", "600", "--latency-ms", "200"], corpus: nil)
            let (warm, database) = try warmUnderWay(until: 50, standIn: standIn)
            try server.restart()
            try standIn.setBehaviour("latency-ms=20")
            let out = warm.wait(timeout: 120)
            #expect(out.status == 0 || out.status == 75, "exit \(out.status): \(out.stderr)")
            #expect(!out.stderr.contains(server.password))
            try expectLedgerCoversCallsAndTheNextWarmFinishes(database, standIn: standIn)
        }
    }

    @Test func aServerFrozenForAMomentIsWaitedOut() async throws {
        try await offThePool {
            let standIn = try StandInProcess(arguments: ["--generate", "600", "--latency-ms", "200"], corpus: nil)
            let (warm, database) = try warmUnderWay(until: 50, standIn: standIn)
            try server.freeze()
            sleep(4)
            try server.thaw()
            try standIn.setBehaviour("latency-ms=20")
            let out = warm.wait(timeout: 120)
            #expect(out.status == 0, "exit \(out.status): \(out.stderr)")
            #expect(try count(database, "SELECT count(*) FROM films") == 600)
            #expect(try count(database, "SELECT coalesce(sum(used), 0) FROM quota_ledger") == 600)
            #expect(try standIn.requestCount() == 600)
        }
    }

    @Test func aServerThatStopsAnsweringEndsTheWarmWith75NotAHang() async throws {
        try await offThePool {
            let standIn = try StandInProcess(arguments: ["--generate", "600", "--latency-ms", "200"], corpus: nil)
            let (warm, database) = try warmUnderWay(until: 50, standIn: standIn)
            try server.freeze()
            try standIn.setBehaviour("latency-ms=20")
            let frozen = Date()
            // A probe waits 10 s for the server; each of the warm's last few operations finds it gone.
            let out = warm.wait(timeout: 150)
            let waited = Date().timeIntervalSince(frozen)
            try server.thaw()
            #expect(out.status == 75, "exit \(out.status) after \(Int(waited)) s: \(out.stderr)")
            #expect(out.stderr.contains("is unavailable: the server did not answer within 10 s"), "\(out.stderr)")
            #expect(!out.stderr.contains(server.password))
            try expectLedgerCoversCallsAndTheNextWarmFinishes(database, standIn: standIn)
        }
    }

    @Test func commandsStartedWhileTheServerIsFrozenExit75() async throws {
        try await offThePool {
            let database = try server.createDatabase()
            let url = server.url(database: database)
            let worklist = try scratch.worklist("w.txt", Array(ids.prefix(3)))
            // The schema is made while the server answers; then it stops answering.
            let standIn = try StandInProcess(arguments: ["--generate", "3"], corpus: nil)
            let first = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", url, "--base-url", standIn.baseURL, "--no-progress", worklist],
                environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            try server.freeze()
            defer { try? server.thaw() }
            for arguments in [
                ["quota", "--db", url], ["plan", "--db", url, worklist],
                ["warm", "--db", url, "--base-url", standIn.baseURL, "--no-progress", worklist],
                ["posters", "--db", url, "--store", scratch.dir + "/posters"],
            ] {
                let started = Date()
                let out = try RunningBinary("filmcache", arguments, environment: environment).wait(timeout: 90)
                let took = Int(Date().timeIntervalSince(started))
                #expect(out.status == 75, "\(arguments[0]): exit \(out.status) after \(took) s: \(out.stderr)")
                #expect(out.stderr.contains("is unavailable"), "\(arguments[0]): \(out.stderr)")
            }
            #expect(try standIn.requestCount() == 3, "no call while the cache cannot be reached")
        }
    }
}
