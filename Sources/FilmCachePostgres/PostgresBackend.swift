import FilmCacheKit
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL backend: the cache, the ledger and the night's plan shared by every `warm` and
/// `serve` on every host, through a pool of connections (postgres-nio's `PostgresClient`).
///
/// The pool works only while its `run()` is running: ``withBackend(_:password:time:logger:readOnly:_:)``
/// runs it beside `body` and ends it after; ``open(_:password:time:logger:readOnly:pool:)`` runs it until
/// ``close()``, or in a ``PostgresPoolService`` in the command's service group. Every operation is
/// one transaction on one leased connection, and gives the same answers as the SQLite backend (the
/// contract suite runs both).
///
/// The password is handed to the pool and kept nowhere else: no message, log line or description
/// of this type holds it.
public final class PostgresBackend: CacheBackend {
    /// The URL with no password, as every message names the database.
    public let displayName: String
    /// Several warms share one plan, each claiming its part.
    public var sharesPlanBetweenWarms: Bool { true }
    public var concurrentCommits: Int { 2 }

    let client: PostgresClient
    let logger: Logger
    /// How a film is written and read, from the `films` table's own column types.
    let filmSQL: FilmSQL
    let connector: Connector
    /// The schema version the database had at open: a read-only open of an older one reads the
    /// tables added since as empty (``has(_:)``).
    let version: Int
    /// The session whose advisory locks say this process's runs and flights are alive.
    let session: LiveSession
    /// Whether ``close()`` ran, and the pool's own task (none when it runs in a ``PostgresPoolService``).
    private let running: Mutex<(closed: Bool, task: Task<Void, Never>?)>

    private init(
        client: PostgresClient, connector: Connector, filmSQL: FilmSQL, version: Int, logger: Logger,
        running: Task<Void, Never>?
    ) {
        self.client = client
        self.connector = connector
        self.filmSQL = filmSQL
        self.version = version
        self.logger = logger
        self.displayName = connector.location.displayName
        self.session = LiveSession(connector: connector, logger: logger)
        self.running = Mutex((false, running))
    }

    /// Opens the database at `location`, runs `body` with it and closes it, the pool running in a
    /// child task for exactly that long.
    ///
    /// Unless `readOnly`, an empty database gets the schema and an older one is migrated (once,
    /// whatever number of processes open it at the same moment); a read-only open changes nothing
    /// and refuses a database without this build's schema.
    public static func withBackend<T: Sendable>(
        _ location: PostgresLocation, password: String?, time: TimeSource, logger: Logger, readOnly: Bool = false,
        _ body: (PostgresBackend) async throws -> T
    ) async throws -> T {
        let backend = try await open(location, password: password, time: time, logger: logger, readOnly: readOnly)
        do {
            let result = try await body(backend)
            await backend.close()
            return result
        } catch {
            await backend.close()
            throw error
        }
    }

    /// Opens the database at `location` (as ``withBackend(_:password:time:logger:readOnly:_:)`` does) for
    /// a command's whole life; ``close()`` ends the pool.
    ///
    /// With `pool`, the pool runs in that service (in the command's group) instead of a task of its
    /// own, and ``close()`` leaves its end to the group.
    public static func open(
        _ location: PostgresLocation, password: String?, time: TimeSource, logger: Logger, readOnly: Bool = false,
        pool: PostgresPoolService? = nil
    ) async throws(StoreError) -> PostgresBackend {
        guard
            let backend = try await open(
                location, password: password, time: time, logger: logger, readOnly: readOnly, nilIfAbsent: false,
                pool: pool)
        else {
            throw PostgresSchema.absent(database: location.displayName)
        }
        return backend
    }

    /// Opens the database at `location` read-only (as ``open(_:password:time:logger:readOnly:pool:)`` does), or
    /// `nil` when it has no filmcache schema at all: for the commands that read, a database no warm
    /// has written is an empty cache, as a SQLite file not created yet is.
    public static func openIfPresent(
        _ location: PostgresLocation, password: String?, time: TimeSource, logger: Logger
    ) async throws(StoreError) -> PostgresBackend? {
        try await open(location, password: password, time: time, logger: logger, readOnly: true, nilIfAbsent: true)
    }

    /// The backend, or `nil` for a read-only open of a database with no schema when `nilIfAbsent`.
    private static func open(
        _ location: PostgresLocation, password: String?, time: TimeSource, logger: Logger, readOnly: Bool,
        nilIfAbsent: Bool, pool: PostgresPoolService? = nil
    ) async throws(StoreError) -> PostgresBackend? {
        guard
            let (connector, filmSQL, version) = try await prepare(
                location, password: password, time: time, logger: logger, readOnly: readOnly)
        else {
            if nilIfAbsent { return nil }
            throw PostgresSchema.absent(database: location.displayName)
        }
        let client = connector.makeClient()
        let running: Task<Void, Never>?
        if let pool {
            pool.adopt(client, connector: connector)
            running = nil
        } else {
            running = Task { await client.run() }
        }
        return PostgresBackend(
            client: client, connector: connector, filmSQL: filmSQL,
            version: version, logger: logger, running: running)
    }

    /// Ends the pool (started by ``open(_:password:time:logger:readOnly:pool:)``), closing its connections;
    /// a pool that runs in a ``PostgresPoolService`` is left to its group, and only the session ends here.
    ///
    /// It waits for that at most ``closingLimit``, and no longer than a probe of the server takes
    /// to find it gone: a connection to a server that stopped answering never closes, nor does one
    /// an abandoned operation still holds.
    public func close() async {
        let (closed, task) = running.withLock { running in
            defer { running = (true, nil) }
            return running
        }
        guard !closed else { return }
        await session.close()
        guard let task else { return }
        task.cancel()
        let connector = connector
        try? await race {
            await task.value
        } against: {
            try await connector.probe(for: Self.closingLimit, every: PostgresPoolService.probeInterval)
        }
    }

    /// Connects once, outside the pool, so that a wrong password, an unknown database or a server
    /// that is down is told at once and precisely; brings the schema up to date on that connection
    /// and returns the version it has then; `nil` for a read-only open of a database with no schema.
    private static func prepare(
        _ location: PostgresLocation, password: String?, time: TimeSource, logger: Logger, readOnly: Bool
    ) async throws(StoreError) -> (Connector, FilmSQL, Int)? {
        let connector = try Connector(location: location, password: password, time: time, logger: logger)
        let connection = try await connector.connect()
        do {
            let prepared = try await connector.mapping { () async throws -> (FilmSQL, Int)? in
                guard
                    let version = try await PostgresSchema.prepare(
                        connection, database: location.displayName, readOnly: readOnly, logger: logger)
                else { return nil }
                return (try await FilmSQL(connection, logger: logger), version)
            }
            try? await connection.close()
            return prepared.map { (connector, $0.0, $0.1) }
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Whether the database has the tables `step` adds.
    func has(_ step: SchemaStep) -> Bool { version >= step.version }

    /// Whether the database has `answers` and `demand`.
    var hasAnswers: Bool { has(.serveAnswers) }

    /// Whether the database has the TMDb tables.
    var hasTMDb: Bool { has(.tmdb) }

    public func schemaVersion() async throws(StoreError) -> Int {
        try await withConnection { c, logger in try await PostgresSchema.version(c, logger: logger) ?? 0 }
    }

    /// The tables of the cache's schema with their indexes and out-of-line values.
    public func storedBytes() async throws(StoreError) -> Int? {
        try await withConnection { c, logger in
            try await c.rows(
                """
                SELECT coalesce(sum(pg_total_relation_size(r.oid)), 0)::bigint FROM pg_class AS r
                WHERE r.relnamespace = current_schema()::regnamespace AND r.relkind = 'r'
                """, logger
            ).first?.decode(Int.self) ?? 0
        }
    }

    // MARK: - Connections

    /// How long closing waits for the pool's connections to end, the server answering.
    static let closingLimit = Duration.seconds(30)
    /// How long an operation waits for a pooled connection while the server answers probes.
    static let leaseLimit = Duration.seconds(60)

    /// Runs `body` on a connection leased from the pool.
    ///
    /// An operation that has not ended after a second is watched: the server is probed outside the
    /// pool every few seconds, and the operation fails as `unavailable` as soon as a probe finds
    /// the server down, refusing or not answering (see ``Connector/probe()``), or when the pool
    /// has given no connection for ``leaseLimit`` though the server answers. A statement on a
    /// connection to a server that is frozen or cut off would otherwise wait forever: the pool
    /// keeps such a connection, and keeps retrying a refusing server for a minute without a reason.
    func withConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection, Logger) async throws -> T
    ) async throws(StoreError) -> T {
        let client = client
        let logger = logger
        return try await Self.watched(connector) { lease in
            try await client.withConnection { connection in
                lease.connection = connection
                return try await body(connection, logger)
            }
        }
    }

    /// Runs `body`, watched as ``withConnection(_:)`` describes, on `connection` when given, else on
    /// the one `body` sets in its lease.
    static func watched<T: Sendable>(
        _ connector: Connector, connection: PostgresConnection? = nil,
        _ body: @escaping @Sendable (Lease) async throws -> T
    ) async throws(StoreError) -> T {
        try await connector.mapping { () async throws -> T in
            let lease = Lease()
            lease.connection = connection
            return try await race {
                try await body(lease)
            } against: {
                try await Self.watch(connector, lease: lease)
            }
        }
    }

    /// Probes the server while an operation runs, throwing what makes the operation hopeless; never
    /// returns otherwise.
    private static func watch<T>(_ connector: Connector, lease: Lease) async throws -> T {
        let time = connector.time
        let start = time.elapsed()
        var wait = Duration.seconds(1)
        while true {
            try await time.sleep(for: wait)
            wait = .seconds(5)
            // A statement sent just before the server ended its connection can be left waiting for
            // good: the connection is closed and nothing will answer it.
            if lease.connection?.isClosed == true {
                throw StoreError.unavailable(
                    database: connector.location.displayName,
                    message: "the server closed the connection during the operation")
            }
            try await connector.probe()
            if lease.connection == nil, time.elapsed() - start > leaseLimit {
                throw StoreError.unavailable(
                    database: connector.location.displayName,
                    message:
                        "the server answers, but no pooled connection came free in \(leaseLimit.components.seconds) s")
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

/// The connection an operation leased, once it has one: set by the operation, read by its watch.
final class Lease: Sendable {
    private let leased = Mutex<PostgresConnection?>(nil)
    var connection: PostgresConnection? {
        get { leased.withLock { $0 } }
        set { leased.withLock { $0 = newValue } }
    }
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
