import FilmCacheKit
import Foundation
import Logging
import PostgresNIO

/// How to reach one PostgreSQL database: the pool's configuration, single connections outside the
/// pool, and what their errors mean as `StoreError`s.
///
/// It holds the password, so it describes and reflects itself by the location's display name only.
final class Connector: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let location: PostgresLocation
    private let password: String?
    private let tls: TLSConfiguration?
    private let logger: Logger

    /// How the pool's connections name themselves to the server (`pg_stat_activity.application_name`);
    /// the single connections that open a database and probe it add " open", the one that holds a
    /// process's claims (``LiveSession``) " session".
    static let applicationName = "filmcache"

    /// Connections the pool keeps at most: a warm's writer, its plan and claims, and `serve`'s readers.
    static let maximumConnections = 8

    /// Where the connector's waits (and those of everything that connects through it) are timed.
    let time: TimeSource

    init(location: PostgresLocation, password: String?, time: TimeSource, logger: Logger) throws(StoreError) {
        self.location = location
        self.password = password
        self.time = time
        self.logger = logger
        switch location.sslMode {
        case .disable:
            tls = nil
        case .prefer, .require:
            // libpq's prefer and require encrypt without checking whom to.
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .none
            tls = configuration
        case .verifyFull:
            tls = TLSConfiguration.makeClientConfiguration()
        }
    }

    var description: String { "Connector(\(location.displayName))" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["location": location.displayName]) }

    /// A pool for this database; it works while its `run()` runs.
    func makeClient() -> PostgresClient {
        let tls: PostgresClient.Configuration.TLS =
            switch (location.sslMode, self.tls) {
            case (.disable, _), (_, nil): .disable
            case (.prefer, let configuration?): .prefer(configuration)
            case (_, let configuration?): .require(configuration)
            }
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: password,
            database: location.database, tls: tls)
        configuration.options.maximumConnections = Self.maximumConnections
        configuration.options.connectTimeout = .seconds(Self.connectLimit.components.seconds)
        configuration.options.additionalStartupParameters = [("application_name", Self.applicationName)]
        return PostgresClient(configuration: configuration, backgroundLogger: PoolLogHandler.logger(logger))
    }

    /// How long a connection may take, from the first packet to the server's "ready".
    static let connectLimit = Duration.seconds(10)

    /// One connection outside the pool; the caller closes it. `unavailable` when the server has not
    /// let it in within ``connectLimit``: a server that is frozen or cut off accepts the TCP
    /// connection, or drops its packets, and never answers. `purpose` follows the application name.
    func connect(for purpose: String = "open") async throws(StoreError) -> PostgresConnection {
        let database = location.displayName
        do {
            return try await race {
                try await self.connectNow(for: purpose)
            } against: { [time] in
                try await time.sleep(for: Self.connectLimit)
                throw StoreError.unavailable(
                    database: database,
                    message: "the server did not answer within \(Self.connectLimit.components.seconds) s")
            } leftover: { late in
                try? await late.close()
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .failed(database: database, message: "the operation was cancelled", code: "cancelled")
        }
    }

    /// Connects with no limit but the TCP connect's own.
    private func connectNow(for purpose: String) async throws(StoreError) -> PostgresConnection {
        try await mapping(probing: false) { () async throws -> PostgresConnection in
            let tls: PostgresConnection.Configuration.TLS
            switch (location.sslMode, self.tls) {
            case (.disable, _), (_, nil): tls = .disable
            case (.prefer, let configuration?): tls = .prefer(try NIOSSLContext(configuration: configuration))
            case (_, let configuration?): tls = .require(try NIOSSLContext(configuration: configuration))
            }
            var configuration = PostgresConnection.Configuration(
                host: location.host, port: location.port, username: location.user, password: password,
                database: location.database, tls: tls)
            // Past the race in `connect()`, so that a server that does not answer is told one way
            // (its words), whether the TCP connect or the startup is what hangs.
            configuration.options.connectTimeout = .init(Self.connectLimit + .seconds(5))
            configuration.options.additionalStartupParameters = [
                ("application_name", Self.applicationName + " " + purpose)
            ]
            return try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        }
    }

    /// Connects and disconnects: throws what keeps a connection from being made, if anything does
    /// (see ``connect()``).
    func probe() async throws(StoreError) {
        let connection = try await connect()
        try? await connection.close()
    }

    /// Runs `body`, turning what it throws into a `StoreError` about this database. An error that
    /// says nothing of its cause (the pool's own) is explained by probing the server, when `probing`.
    func mapping<T>(probing: Bool = true, _ body: () async throws -> T) async throws(StoreError) -> T {
        do {
            return try await body()
        } catch {
            throw await storeError(error, probing: probing)
        }
    }

    /// What `error` means for this database.
    private func storeError(_ error: any Error, probing: Bool) async -> StoreError {
        let database = location.displayName
        switch error {
        case let error as StoreError:
            return error
        case let error as PostgresTransactionError:
            guard let inner = error.closureError ?? error.beginError ?? error.commitError else {
                return .failed(database: database, message: "the transaction failed", code: "transaction")
            }
            return await storeError(inner, probing: probing)
        case let error as PSQLError:
            return storeError(error)
        case is CancellationError:
            return .failed(database: database, message: "the operation was cancelled", code: "cancelled")
        default:
            if probing {
                do { try await probe() } catch { return error }
            }
            return .unavailable(database: database, message: Self.reason(error))
        }
    }

    /// What a postgres-nio error means: the server's refusals of who connects open nothing, lost or
    /// refused connections are for later, and the rest are failed statements with their SQLSTATE.
    private func storeError(_ error: PSQLError) -> StoreError {
        let database = location.displayName
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "?????"
            var message = error.serverInfo?[.message] ?? "the server refused the statement"
            if let detail = error.serverInfo?[.detail] { message += " (\(detail))" }
            switch state {
            // invalid authorization, wrong password, no such database
            case "28000", "28P01", "3D000":
                return .open(database: database, message: message)
            // connection exceptions, too many connections, server shutting down or starting
            case let code where code.hasPrefix("08") || ["53300", "57P01", "57P02", "57P03"].contains(code):
                return .unavailable(database: database, message: message)
            default:
                // lock_not_available, deadlock_detected, serialization_failure: another transaction held on.
                let busy = ["55P03", "40P01", "40001"].contains(state)
                return .failed(database: database, message: message, code: "SQLSTATE \(state)", busy: busy)
            }
        case .authMechanismRequiresPassword:
            return .open(
                database: database,
                message: "the server asks for a password and none was found (db_password_file, PGPASSWORD, ~/.pgpass)")
        case .unsupportedAuthMechanism, .saslError:
            return .open(database: database, message: "authentication failed (\(error.code))")
        case .sslUnsupported:
            return .open(database: database, message: "the server does not offer TLS, which sslmode requires")
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return .open(database: database, message: "TLS could not be set up (\(error.code))")
        case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
            let cause = error.underlying.map { ": \(Self.reason($0))" } ?? ""
            return .unavailable(database: database, message: "\(Self.connectionText(error.code))\(cause)")
        case .queryCancelled:
            return .failed(database: database, message: "the statement was cancelled", code: "cancelled")
        default:
            return .failed(database: database, message: "\(error.code)", code: "postgres-nio \(error.code)")
        }
    }

    /// The words for a postgres-nio connection error.
    private static func connectionText(_ code: PSQLError.Code) -> String {
        switch code {
        case .serverClosedConnection, .uncleanShutdown: "the server closed the connection"
        case .clientClosedConnection, .poolClosed: "the connection was closed"
        default: "no connection could be made"
        }
    }

    /// A short cause for a transport error: the system's words for its errno where there is one.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return String(cString: strerror(error.errnoCode))
        case let error as NIOConnectionError:
            let causes = error.connectionErrors.map { reason($0.error) }
            if let first = causes.first { return first }
            if let dns = error.dnsAError ?? error.dnsAAAAError { return "cannot resolve the host: \(dns)" }
            return "no address to connect to"
        case ChannelError.connectTimeout:
            return "the connection timed out"
        default:
            return String(describing: error)
        }
    }

    /// Probes the server every `interval` for `limit`, while a pool closes: throws as soon as a probe
    /// finds the server gone (its connections will never close), returns when `limit` has passed.
    func probe(for limit: Duration, every interval: Duration) async throws {
        let end = time.elapsed() + limit
        while time.elapsed() < end {
            try await time.sleep(for: interval)
            try await probe()
        }
    }

}
