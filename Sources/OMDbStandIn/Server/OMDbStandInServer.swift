import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server on 127.0.0.1 (or another address it is given) that answers like OMDb
/// (omdbapi.com) from a fixture corpus.
///
/// Hummingbird on NIO's shared event loops; faults below HTTP (a reset, a truncated body) are
/// carried out by a channel handler on each connection. Endpoints:
/// - `GET /?apikey=KEY&i=ttNNN` (also `t=Title`, optional `y=`, `type=`; `plot=full` lengthens the
///   `Plot`), `s=` searches and `Season=`/`Episode=` lists as `OMDbAnswers` describes them: the
///   film's stored body, OMDb's misses such as `Incorrect IMDb ID.` / `Movie not found!` (200),
///   `No API key provided.` / `Invalid API key!` / `Request limit reached!` (401), or an injected fault.
/// - TMDb API v3 under `/3/` and its images under `/t/p/`, as `TMDbService` describes them.
/// - `GET /__standin/stats`: `StandInStats` as JSON.
/// - `POST /__standin/reset`: zeroes counters and daily usage (a new quota day).
/// - `GET`/`POST /__standin/faults?fault-rate=&faults=&seed=&latency-ms=&limit-after=&daily-limit=`:
///   reads or changes `StandInBehaviour`.
///
/// ```swift
/// let server = OMDbStandInServer(configuration: StandInConfiguration(apiKeys: ["demo"]))
/// let port = try server.start()
/// defer { server.stop() }
/// ```
public final class OMDbStandInServer: Sendable {
    private struct Lifecycle {
        /// Set once by `start()`.
        var isStarted = false
        /// The listening channel while running.
        var listener: (any Channel)?
        /// The bound port.
        var port: Int?
        /// Set once by `stop()`.
        var isStopping = false
        /// The task running the server.
        var task: Task<Void, Never>?
    }

    /// The configuration the server was created with (runtime behaviour changes are not reflected here).
    public let configuration: StandInConfiguration
    private let engine: StandInEngine
    private let lifecycle = Locked(Lifecycle())
    private let connections = StandInConnections()
    private let stopped = DispatchSemaphore(value: 0)

    /// Creates a server; nothing is bound until `start()`.
    public init(configuration: StandInConfiguration = StandInConfiguration()) {
        self.configuration = configuration
        engine = StandInEngine(configuration: configuration)
    }

    /// Binds the configured address and port, starts accepting, and returns the bound port.
    public func start() throws(StandInServerError) -> Int {
        let host = configuration.host
        let port = configuration.port
        guard (0...65_535).contains(port) else { throw .invalidPort(port) }
        guard Self.isIPv4Address(host) else { throw .invalidHost(host) }
        let alreadyStarted = lifecycle.withLock { state -> Bool in
            guard !state.isStarted else { return true }
            state.isStarted = true
            return false
        }
        if alreadyStarted { throw .alreadyStarted }

        let group = MultiThreadedEventLoopGroup.singleton
        let outcome = Locked<Result<any Channel, StandInServerError>?>(nil)
        let settled = DispatchSemaphore(value: 0)
        let settle = { @Sendable (result: Result<any Channel, StandInServerError>) in
            let first = outcome.withLock { current -> Bool in
                guard case .none = current else { return false }
                current = result
                return true
            }
            if first { settled.signal() }
        }
        let engine = engine
        let connections = connections
        let lifecycle = lifecycle
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                StandInConnectionHandler(engine: engine, connections: connections), StandInWireFaultHandler(),
            ],
            idleTimeout: .seconds(Int64(max(1, configuration.idleTimeoutSeconds))))
        let app = Application(
            responder: StandInResponder(engine: engine, isStopping: { lifecycle.withLock { $0.isStopping } }),
            server: .http1(configuration: http1),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: port), serverName: nil, backlog: 1024),
            onServerRunning: { channel in settle(.success(channel)) },
            eventLoopGroupProvider: .shared(group),
            logger: Logger(label: "omdb-standin", factory: { _ in SwiftLogNoOpLogHandler() }))
        // The server's tasks run on the event loops: a caller blocking its thread (a test reading a
        // socket) must never starve the server of the thread it needs to answer.
        let task = Task(executorPreference: EventLoopTaskExecutor(group: group)) {
            do {
                try await app.run()
                settle(.failure(.stoppedBeforeListening))
            } catch let error as IOError {
                settle(.failure(.system(call: "bind \(host):\(port)", errno: error.errnoCode)))
            } catch {
                settle(.failure(.cannotListen("\(error)")))
            }
        }
        settled.wait()
        switch outcome.withLock({ $0 })! {
        case .success(let listener):
            let boundPort = listener.localAddress?.port ?? port
            lifecycle.withLock { state in
                state.listener = listener
                state.port = boundPort
                state.task = task
            }
            return boundPort
        case .failure(let error):
            task.cancel()
            lifecycle.withLock { $0.isStopping = true }
            stopped.signal()
            throw error
        }
    }

    /// The bound port while running, otherwise nil.
    public var port: Int? {
        lifecycle.withLock { $0.isStopping ? nil : $0.port }
    }

    /// Stops accepting, closes every connection, and returns once their sockets are closed. Safe to
    /// call more than once.
    public func stop() {
        let running = lifecycle.withLock { state -> (listener: any Channel, task: Task<Void, Never>?)? in
            guard !state.isStopping, let listener = state.listener else { return nil }
            state.isStopping = true
            return (listener, state.task)
        }
        guard let running else { return }
        try? running.listener.close().wait()
        connections.closeAll()
        running.task?.cancel()
        stopped.signal()
    }

    /// Blocks the calling thread until `stop()` has finished.
    public func waitUntilStopped() {
        stopped.wait()
        stopped.signal()
    }

    /// A snapshot of all counters (the same data `GET /__standin/stats` returns).
    public func stats() -> StandInStats {
        engine.stats()
    }

    /// Requests counted against `key` since start or the last reset (0 for a key that is not accepted).
    public func requestCount(forKey key: String) -> Int {
        engine.counters(forKey: key)?.requests ?? 0
    }

    /// How requests with `key` were answered, or nil when `key` is not accepted.
    public func counters(forKey key: String) -> StandInCounters? {
        engine.counters(forKey: key)
    }

    /// Zeroes counters and daily usage and restarts the fault sequence, like `POST /__standin/reset`.
    public func reset() {
        engine.reset()
    }

    /// The current limits, faults and latency.
    public var behaviour: StandInBehaviour {
        engine.behaviour
    }

    /// Replaces limits, faults and latency while running, like `POST /__standin/faults`.
    package func updateBehaviour(_ behaviour: StandInBehaviour) {
        engine.updateBehaviour(behaviour)
    }

    /// Whether `text` is an IPv4 address (a dotted quad such as `10.0.0.1`) the server can listen on.
    public static func isIPv4Address(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }
}

/// Why the server could not start.
public enum StandInServerError: Error, CustomStringConvertible {
    /// The port is outside 0…65535.
    case invalidPort(Int)
    /// The address to listen on is not an IPv4 address.
    case invalidHost(String)
    /// `start()` was called on a server that is running or stopped.
    case alreadyStarted
    /// A socket call failed.
    case system(call: String, errno: Int32)
    /// The server could not listen, for a reason other than a socket call's.
    case cannotListen(String)
    /// The server ended before it was listening.
    case stoppedBeforeListening

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .invalidPort(let port): "port \(port) is outside 0...65535"
        case .invalidHost(let host): "\(host) is not an IPv4 address (such as 127.0.0.1)"
        case .alreadyStarted: "the server was already started"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        case .cannotListen(let reason): "cannot listen: \(reason)"
        case .stoppedBeforeListening: "the server stopped before it was listening"
        }
    }
}
