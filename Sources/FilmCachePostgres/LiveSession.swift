import FilmCacheKit
import Logging
import PostgresNIO
import Synchronization

/// The session that says this process is alive: one connection of its own, outside the pool, on
/// which the process holds a session-level advisory lock for each holder of claims it is (its warm's
/// run, its `serve` holder). The server drops a session's locks the moment the session ends — the
/// process killed, its host rebooted, the server restarted — so a claim whose holder's lock no
/// session holds is free at once; a claim's lease is left only for a host that is cut off while the
/// server still holds its session.
///
/// The connection lives as long as the backend (a pooled one is handed to whichever operation comes
/// next, and closed or replaced by the pool at will). When it ends, the locks it held are gone for
/// good: a run learns it (``waitUntilLost(_:)``) and stops, since others may take what it held; a
/// `serve` holder takes its lock again on a new session at its next flight.
final class LiveSession: Sendable {
    private struct State {
        var connection: PostgresConnection?
        /// The holders whose locks the connection holds.
        var held: Set<Int> = []
        var closed = false
    }

    private let state = Mutex(State())
    /// One statement at a time on the connection, and one connect.
    private let turn = AsyncLock()
    private let connector: Connector
    private let logger: Logger

    init(connector: Connector, logger: Logger) {
        self.connector = connector
        self.logger = logger
    }

    /// How often a run's session is asked whether it still answers: a host cut off from the server
    /// learns it within this and ``Connector/connectLimit``, far within any claim lease.
    static let pingInterval = Duration.seconds(10)

    /// The lock key of the holder `holder` names (an SQL expression of type `bigint`): a hash of the
    /// holder and the `claims` table it holds rows of, so that caches in other schemas of the
    /// database, and other applications' advisory locks, never share one.
    static func key(_ holder: String) -> String {
        "hashtextextended('filmcache claims ' || 'claims'::regclass::oid::text || ' ' || (\(holder))::text, 0)"
    }

    /// An SQL condition: no session holds the lock of the holder `holder` names, so it is gone.
    static func gone(_ holder: String) -> String {
        """
        \(key(holder)) NOT IN (
            SELECT (l.classid::bigint << 32) | l.objid::bigint FROM pg_locks AS l
            WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
              AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))
        """
    }

    /// Runs `body` on the session's connection, one at a time, connecting first when there is none
    /// (or it ended); `body` is handed the connection and the holders it holds locks for, which it
    /// may add to. Fails as `unavailable` when the server is found gone while `body` waits.
    func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> (T, held: Int?)
    ) async throws(StoreError) -> T {
        await turn.lock()
        defer { turn.unlock() }
        let connection = try await current()
        let logger = logger
        let (value, held) = try await PostgresBackend.watched(connector, connection: connection) { _ in
            try await body(connection, logger)
        }
        if let held {
            state.withLock { s in if s.connection === connection { s.held.insert(held) } }
        }
        return value
    }

    /// The connection, a new one when there is none or it ended (its locks gone with it).
    private func current() async throws(StoreError) -> PostgresConnection {
        let (existing, closed) = state.withLock { s in (s.connection, s.closed) }
        if let existing, !existing.isClosed { return existing }
        if closed {
            throw StoreError.failed(
                database: connector.location.displayName, message: "the database was closed", code: "closed")
        }
        let connection = try await connector.connect(for: "session")
        let logger = logger
        try await connector.mapping {
            // A server set to end idle sessions would end this one, which idles between a run's pings.
            try await connection.run(
                """
                SELECT set_config(name, '0', false) FROM pg_settings
                WHERE name IN ('idle_session_timeout', 'idle_in_transaction_session_timeout')
                """, logger)
        }
        state.withLock { s in
            s.connection = connection
            s.held = []
        }
        return connection
    }

    /// Takes `holder`'s lock on the session unless it already holds it; `false` when another
    /// session holds it (a live process is that holder too).
    func hold(_ holder: Int) async throws(StoreError) -> Bool {
        if holds(holder) { return true }
        return try await withConnection { c, logger in
            let taken =
                try await c.rows(
                    PostgresQuery(unsafeSQL: "SELECT pg_try_advisory_lock(\(Self.key(String(holder))))"), logger
                ).first?.decode(Bool.self) ?? false
            return (taken, taken ? holder : nil)
        }
    }

    /// Lets go of `holder`'s lock, if the session holds it.
    func release(_ holder: Int) async {
        guard holds(holder) else { return }
        _ = try? await withConnection { c, logger in
            try await c.run(PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(Self.key(String(holder))))"), logger)
            return ((), nil)
        }
        state.withLock { _ = $0.held.remove(holder) }
    }

    /// Whether the session, as far as this process knows, still holds `holder`'s lock.
    func holds(_ holder: Int) -> Bool {
        state.withLock { s in
            guard let connection = s.connection, !connection.isClosed else { return false }
            return s.held.contains(holder)
        }
    }

    /// Returns when the session no longer holds `holder`'s lock — its connection ended, or stopped
    /// answering a ping within ``Connector/connectLimit`` (then it is closed, so that the server, if
    /// it still sees it, drops the lock too) — or at once when it never did; or when cancelled.
    func waitUntilLost(_ holder: Int) async {
        let time = connector.time
        var lastPing = time.elapsed()
        while !Task.isCancelled, holds(holder) {
            try? await time.sleep(for: .milliseconds(100))
            guard time.elapsed() - lastPing >= Self.pingInterval, !Task.isCancelled else { continue }
            lastPing = time.elapsed()
            do {
                try await withConnection { c, logger in
                    try await c.run("SELECT 1", logger)
                    return ((), nil)
                }
            } catch {
                logger.warning(
                    "the session holding this process's claims stopped answering", metadata: ["error": "\(error)"])
                await drop()
            }
        }
    }

    /// Closes the connection (its locks go with it); the next use connects again.
    private func drop() async {
        let connection = state.withLock { s in
            defer { s.connection = nil; s.held = [] }
            return s.connection
        }
        guard let connection else { return }
        // A connection cut off may not close promptly: it is let go of, not waited for.
        _ = try? await race {
            try await connection.close()
        } against: { [time = connector.time] in
            try await time.sleep(for: Connector.connectLimit)
        }
    }

    /// Ends the session for good: its locks are let go.
    func close() async {
        state.withLock { $0.closed = true }
        await drop()
    }
}
