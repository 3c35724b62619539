import Foundation
import PostgresScratch
import Testing

/// The read commands when their PostgreSQL server stops answering while they run: each has opened
/// the database and is mid-statement when the server freezes (a host that hangs or is cut off),
/// and each must end with 75 (try again later), not 74 or a hang, within about the probe's 10 s.
///
/// To catch commands this quick mid-statement, a session holds every table of the cache locked:
/// each command opens the database (its schema check reads no locked table), then waits on the
/// lock in its first query, where the server shows it waiting; only then is the server frozen.
/// The suite has a server of its own: freezing the shared one would fail the tests beside it.
@Suite(.serialized, .timeLimit(.minutes(3))) final class PostgresCommandOutageEndToEndTests: Sendable {
    let server: ScratchPostgres
    let scratch: ReliabilityScratch

    init() async throws {
        (server, scratch) = try await offThePool { (try ScratchPostgres(), try ReliabilityScratch("pg-command")) }
    }

    deinit { server.remove() }

    /// The password reaches the binary only through `PGPASSWORD`.
    var environment: [String: String] { ["OMDB_API_KEY": "demo", "PGPASSWORD": server.password] }

    /// The `Int` a one-value query on `database` gives.
    func count(_ database: String, _ query: String) throws -> Int {
        Int(try server.sql(query, database: database)) ?? -1
    }

    @Test func planQuotaAndStatsCutOffMidStatementExit75() async throws {
        try await offThePool {
            let database = try server.createDatabase()
            let url = server.url(database: database)
            let worklist = try scratch.worklist("w.txt", GeneratedIDs.first(50))
            let standIn = try StandInProcess(arguments: ["--generate", "50"], corpus: nil)
            let warm = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", url, "--base-url", standIn.baseURL, "--no-progress", worklist],
                environment: environment)
            #expect(warm.status == 0, "\(warm.stderr)")

            let session = try server.session(database: database)
            defer { session.close() }
            let tables = try server.sql(
                "SELECT string_agg(quote_ident(tablename), ', ') FROM pg_tables"
                    + " WHERE schemaname = 'public' AND tablename <> 'schema_migrations'", database: database)
            try session.run("BEGIN; LOCK TABLE \(tables) IN ACCESS EXCLUSIVE MODE")

            let commands = [["quota"], ["plan", worklist], ["stats", worklist]]
            let runs = try commands.map {
                try RunningBinary("filmcache", [$0[0], "--db", url] + $0.dropFirst(), environment: environment)
            }
            let waitingOnTheLock = """
                SELECT count(DISTINCT pid) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name = 'filmcache' AND wait_event_type = 'Lock'
                """
            try waitFor("each command is mid-statement", seconds: 30, ifNotMet: .record) {
                try count(database, waitingOnTheLock) >= commands.count
            }
            #expect(runs.allSatisfy { $0.isRunning }, "no command ended before the server froze")

            try server.freeze()
            let frozen = Date()
            let outputs = runs.map { $0.wait(timeout: 90) }
            let waited = Int(Date().timeIntervalSince(frozen))
            try server.thaw()
            for (command, out) in zip(commands, outputs) {
                #expect(out.status == 75, "\(command[0]): exit \(out.status) after \(waited) s: \(out.stderr)")
                #expect(out.stderr.contains("is unavailable"), "\(command[0]): \(out.stderr)")
                #expect(!out.stderr.contains(server.password) && !out.stdout.contains(server.password))
            }
            #expect(waited < 60, "the probe gives up within about 10 s, not a hang: \(waited) s")
        }
    }
}
