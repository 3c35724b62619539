import FilmCacheKit
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL backend: the cache, the ledger and the night's plan shared by every `warm` and
/// `serve` on every host, through a pool of connections (postgres-nio's `PostgresClient`).
///
/// The pool works only while its `run()` is running: ``withBackend(_:password:logger:readOnly:_:)``
/// runs it beside `body` and ends it after; ``open(_:password:logger:readOnly:)`` runs it until
/// ``close()``. Every operation is one transaction on one leased connection, and gives the same
/// answers as the SQLite backend (the contract suite runs both).
///
/// The password is handed to the pool and kept nowhere else: no message, log line or description
/// of this type holds it.
public final class PostgresBackend: CacheBackend {
    /// The URL with no password, as every message names the database.
    public let displayName: String
    /// Several warms share one plan, each claiming its part.
    public var sharesPlanBetweenWarms: Bool { true }

    let client: PostgresClient
    let logger: Logger
    /// How a film is written and read, from the `films` table's own column types.
    let filmSQL: FilmSQL
    private let connector: Connector
    private let running: Mutex<Task<Void, Never>?>

    private init(
        client: PostgresClient, connector: Connector, filmSQL: FilmSQL, logger: Logger, running: Task<Void, Never>?
    ) {
        self.client = client
        self.connector = connector
        self.filmSQL = filmSQL
        self.logger = logger
        self.displayName = connector.location.displayName
        self.running = Mutex(running)
    }

    /// Opens the database at `location`, runs `body` with it and closes it, the pool running in a
    /// child task for exactly that long.
    ///
    /// Unless `readOnly`, an empty database gets the schema and an older one is migrated (once,
    /// whatever number of processes open it at the same moment); a read-only open changes nothing
    /// and refuses a database without this build's schema.
    public static func withBackend<T: Sendable>(
        _ location: PostgresLocation, password: String?, logger: Logger, readOnly: Bool = false,
        _ body: (PostgresBackend) async throws -> T
    ) async throws -> T {
        let (connector, filmSQL) = try await prepare(location, password: password, logger: logger, readOnly: readOnly)
        let client = connector.makeClient()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(
                PostgresBackend(client: client, connector: connector, filmSQL: filmSQL, logger: logger, running: nil))
        }
    }

    /// Opens the database at `location` (as ``withBackend(_:password:logger:readOnly:_:)`` does) for
    /// a command's whole life; ``close()`` ends the pool.
    public static func open(
        _ location: PostgresLocation, password: String?, logger: Logger, readOnly: Bool = false
    ) async throws(StoreError) -> PostgresBackend {
        let (connector, filmSQL) = try await prepare(location, password: password, logger: logger, readOnly: readOnly)
        let client = connector.makeClient()
        let running = Task { await client.run() }
        return PostgresBackend(
            client: client, connector: connector, filmSQL: filmSQL, logger: logger, running: running)
    }

    /// Ends the pool (started by ``open(_:password:logger:readOnly:)``), closing its connections.
    public func close() async {
        guard
            let task = running.withLock({ task in
                defer { task = nil }; return task
            })
        else { return }
        task.cancel()
        await task.value
    }

    /// Connects once, outside the pool, so that a wrong password, an unknown database or a server
    /// that is down is told at once and precisely; brings the schema up to date on that connection.
    private static func prepare(
        _ location: PostgresLocation, password: String?, logger: Logger, readOnly: Bool
    ) async throws(StoreError) -> (Connector, FilmSQL) {
        let connector = try Connector(location: location, password: password, logger: logger)
        let connection = try await connector.connect()
        do {
            let filmSQL = try await connector.mapping { () async throws -> FilmSQL in
                try await PostgresSchema.prepare(
                    connection, database: location.displayName, readOnly: readOnly, logger: logger)
                return try await FilmSQL(connection, logger: logger)
            }
            try? await connection.close()
            return (connector, filmSQL)
        } catch {
            try? await connection.close()
            throw error
        }
    }

    public func schemaVersion() async throws(StoreError) -> Int {
        try await withConnection { c, logger in try await PostgresSchema.version(c, logger: logger) ?? 0 }
    }

    // MARK: - Connections

    /// Runs `body` on a connection leased from the pool.
    ///
    /// While no connection is leased the server is probed now and then, outside the pool: the pool
    /// keeps retrying a server that refuses it for a minute before failing, and without a reason.
    func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws(StoreError) -> T {
        let client = client
        let connector = connector
        let logger = logger
        return try await connector.mapping { () async throws -> T in
            try await withThrowingTaskGroup(of: T?.self) { group in
                let leased = Flag()
                group.addTask {
                    try await client.withConnection { connection in
                        leased.raise()
                        return try await body(connection, logger)
                    }
                }
                group.addTask {
                    var wait = Duration.seconds(1)
                    while true {
                        try await Task.sleep(for: wait)
                        if leased.isRaised { return nil }
                        // Not cancelled halfway when the lease comes meanwhile: a probe always closes its connection.
                        try await Task { try await connector.probe() }.value
                        wait = .seconds(5)
                    }
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let result { return result }
                }
                throw CancellationError()
            }
        }
    }

    /// Runs `body` in one transaction on a leased connection: committed when it returns, rolled back
    /// when it throws.
    func transaction<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws(StoreError) -> T {
        try await withConnection { connection, logger in
            try await connection.withTransaction(logger: logger) { c in try await body(c, logger) }
        }
    }

    /// Runs `body` in a transaction that holds the advisory lock of `key`'s ledger: every reservation,
    /// release and limit of one key, from any host, happens one after another.
    func ledgerTransaction<T: Sendable>(
        key: String, _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws(StoreError) -> T {
        try await transaction { c, logger in
            try await c.run("SELECT pg_advisory_xact_lock(\(PostgresSchema.ledgerLockClass), hashtext(\(key)))", logger)
            return try await body(c, logger)
        }
    }
}

/// A flag one task raises and another reads.
private final class Flag: Sendable {
    private let value = Atomic(false)
    func raise() { value.store(true, ordering: .relaxed) }
    var isRaised: Bool { value.load(ordering: .relaxed) }
}

extension PostgresConnection {
    /// The rows `query` returns, all read.
    func rows(_ query: PostgresQuery, _ logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }

    /// Runs `query`, reading and dropping any rows, so that its errors surface here.
    func run(_ query: PostgresQuery, _ logger: Logger) async throws {
        _ = try await self.query(query, logger: logger).collect()
    }
}
