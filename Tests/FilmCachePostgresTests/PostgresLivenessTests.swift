import FilmCachePostgres
import Foundation
import PostgresScratch
import Testing

@testable import FilmCacheKit

/// A run's or a serve process's claims live as long as its session with the server: whatever ends
/// the session (the process gone, the connection cut) frees them at once, whatever their lease;
/// nothing else (the pool's connections coming and going) does.
@Suite(.timeLimit(.minutes(3))) struct PostgresLivenessTests {
    let ids = ["tt0000001", "tt0000002", "tt0000003"]
    /// A lease no test outlives: only a session's end frees what it holds.
    let lease = Duration.seconds(600)

    /// Whether `condition` holds within ten seconds, asked every 20 ms: the server ends a session
    /// a moment after its connection closes or it is told to.
    static func eventually(_ condition: () async throws -> Bool) async throws -> Bool {
        try await FilmCacheTestSupport.eventually(within: .seconds(10), every: .milliseconds(20), condition)
    }

    /// The backend pids of the database's sessions that hold claims.
    static func sessions(_ database: ScratchDatabase) throws -> [String] {
        try database.sql(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                + " AND application_name = 'filmcache session' ORDER BY pid"
        ).split(separator: "\n").map(String.init)
    }

    @Test func aRunWhoseProcessEndsHasItsClaimsTakenAtOnceAndIsClosedAsKilled() async throws {
        let database = try Scratch.database()
        let plannedAt = Date()
        try await database.withBackend { (survivor) async throws -> Void in
            let survivorRun = try await survivor.beginRun(startedAt: plannedAt, key: "ab12")
            let deadRun = try await database.withBackend { (victim) async throws -> Int in
                let run = try await victim.beginRun(startedAt: plannedAt, key: "ab12")
                #expect(try await victim.claim(ids, runID: run, plannedAt: plannedAt, lease: lease).granted == ids)
                #expect(
                    try await survivor.claim(ids, runID: survivorRun, plannedAt: plannedAt, lease: lease).granted == [],
                    "a live run's claims hold")
                return run
            }
            // The victim's backend is closed, as a killed process's connections are: its run never finished.
            #expect(
                try await Self.eventually {
                    try await survivor.claim(ids, runID: survivorRun, plannedAt: plannedAt, lease: lease).granted
                        == ids
                })
            _ = try await survivor.beginRun(startedAt: plannedAt, key: "ab12")
            let runs = try await survivor.runs(key: "ab12", since: plannedAt - 60)
            #expect(runs.first { $0.id == deadRun }?.outcome == "killed")
            #expect(runs.first { $0.id == survivorRun }?.finishedAt == nil, "a live run is left going")
        }
    }

    /// The connection that holds a run's lock ends while the process lives (an administrator's
    /// `pg_terminate_backend`, a proxy's idle cut): the run is told, takes nothing more, and the
    /// others take what it held.
    @Test func aRunWhoseSessionIsCutIsToldAndClaimsNothingMore() async throws {
        let database = try Scratch.database()
        let plannedAt = Date()
        try await database.withBackend { (victim) async throws -> Void in
            let run = try await victim.beginRun(startedAt: plannedAt, key: "ab12")
            #expect(try await victim.claim(ids, runID: run, plannedAt: plannedAt, lease: lease).granted == ids)
            let pids = try Self.sessions(database)
            #expect(pids.count == 1)
            try await database.withBackend { (survivor) async throws -> Void in
                let other = try await survivor.beginRun(startedAt: plannedAt, key: "ab12")
                #expect(try await survivor.claim(ids, runID: other, plannedAt: plannedAt, lease: lease).granted == [])
                try database.sql("SELECT pg_terminate_backend(\(pids[0]))")
                // Told within seconds, or the test's time limit fails it.
                await victim.waitUntilClaimsLost(runID: run)
                #expect(
                    try await Self.eventually {
                        try await survivor.claim(ids, runID: other, plannedAt: plannedAt, lease: lease).granted == ids
                    })
                await #expect(throws: StoreError.self, "the cut run claims nothing more") {
                    try await victim.claim(["tt0000004"], runID: run, plannedAt: plannedAt, lease: lease)
                }
            }
        }
    }

    /// The pool's connections come and go (closed by the server, replaced, handed to other
    /// operations): the run's claims stay held, since its lock is on a connection of its own.
    @Test func thePoolsConnectionsEndingLeaveTheClaimsHeld() async throws {
        let database = try Scratch.database()
        let plannedAt = Date()
        try await database.withBackend { (holder) async throws -> Void in
            let run = try await holder.beginRun(startedAt: plannedAt, key: "ab12")
            #expect(try await holder.claim(ids, runID: run, plannedAt: plannedAt, lease: lease).granted == ids)
            try database.sql(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND application_name = 'filmcache'")
            // The pool makes new connections; the run's work goes on through them.
            for _ in 0..<3 { _ = try? await holder.filmCount() }
            #expect(try await holder.claim([], runID: run, plannedAt: plannedAt, lease: lease).granted == [])
            try await database.withBackend { (other) async throws -> Void in
                let otherRun = try await other.beginRun(startedAt: plannedAt, key: "ab12")
                #expect(try await other.claim(ids, runID: otherRun, plannedAt: plannedAt, lease: lease).granted == [])
            }
            let runs = try await holder.runs(key: "ab12", since: plannedAt - 60)
            #expect(runs.first { $0.id == run }?.finishedAt == nil, "not taken for killed")
        }
    }

    @Test func aServeProcessGoneHasItsFlightsTakenAndItsRowsDeletedAtOnce() async throws {
        let database = try Scratch.database()
        try await database.withBackend { (survivor) async throws -> Void in
            try await database.withBackend { (doomed) async throws -> Void in
                #expect(try await doomed.claimFlight("serve:i:tt0000001", holder: -21, lease: lease))
                #expect(try await doomed.claimFlight("serve:i:tt0000002", holder: -21, lease: lease))
                #expect(try await survivor.claimFlight("serve:i:tt0000001", holder: -22, lease: lease) == false)
            }
            #expect(
                try await Self.eventually {
                    try await survivor.claimFlight("serve:i:tt0000001", holder: -22, lease: lease)
                }, "taken at once")
            // A process's first flight deletes the rows of holders gone (the survivor's came before the end).
            try await database.withBackend { (newcomer) async throws -> Void in
                #expect(try await newcomer.claimFlight("serve:i:tt0000003", holder: -23, lease: lease))
                let left = try database.sql(
                    "SELECT string_agg(imdb_id || ' ' || run_id, ',' ORDER BY imdb_id) FROM claims")
                #expect(
                    left.trimmingCharacters(in: .whitespacesAndNewlines)
                        == "serve:i:tt0000001 -22,serve:i:tt0000003 -23",
                    "the gone holder's row deleted, the live ones' kept")
            }
        }
    }

    /// A run whose id another live session already holds as a holder (only a process naming
    /// itself by a run's id could): the run is refused before its row goes in, not run on claims
    /// another process counts as its own.
    @Test func aRunWhoseIdAnotherSessionHoldsIsRefusedAndLeavesNoRow() async throws {
        let database = try Scratch.database()
        try await database.withBackend { (impostor) async throws -> Void in
            // The first run of a new database gets id 1.
            #expect(try await impostor.claimFlight("serve:i:tt0000001", holder: 1, lease: lease))
            try await database.withBackend { (warm) async throws -> Void in
                await #expect(throws: StoreError.self) {
                    try await warm.beginRun(startedAt: Date(), key: "ab12")
                }
                #expect(try await warm.runs(key: nil, since: .distantPast).isEmpty)
            }
        }
    }

    /// A serve process whose session is cut (a server restart ends every session) loses its
    /// flights to the others at once, and holds again from its next flight, on a new session.
    @Test func aServeProcessWhoseSessionIsCutHoldsAgainFromItsNextFlight() async throws {
        let database = try Scratch.database()
        try await database.withBackend { (serve) async throws -> Void in
            #expect(try await serve.claimFlight("serve:i:tt0000001", holder: -41, lease: lease))
            let pids = try Self.sessions(database)
            #expect(pids.count == 1)
            try database.sql("SELECT pg_terminate_backend(\(pids[0]))")
            await serve.waitUntilClaimsLost(runID: -41)
            try await database.withBackend { (other) async throws -> Void in
                #expect(
                    try await Self.eventually {
                        try await other.claimFlight("serve:i:tt0000001", holder: -42, lease: lease)
                    }, "taken at once")
                #expect(try await serve.claimFlight("serve:i:tt0000002", holder: -41, lease: lease))
                #expect(
                    try await other.claimFlight("serve:i:tt0000002", holder: -42, lease: lease) == false, "held again")
            }
        }
    }

    /// Two processes naming themselves the same holder: the second is refused, not let in to take
    /// the first's flights as its own.
    @Test func aHolderAnotherLiveProcessIsAlreadyIsRefused() async throws {
        let database = try Scratch.database()
        try await database.withBackend { (first) async throws -> Void in
            #expect(try await first.claimFlight("serve:i:tt0000001", holder: -31, lease: lease))
            try await database.withBackend { (second) async throws -> Void in
                await #expect(throws: StoreError.self) {
                    try await second.claimFlight("serve:i:tt0000001", holder: -31, lease: lease)
                }
            }
        }
    }
}
