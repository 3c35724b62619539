import Foundation

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
/// Plain POSIX sockets, one thread per keep-alive connection. Endpoints:
/// - `GET /?apikey=KEY&i=ttNNN` (also `t=Title`, optional `y=`, `type=`; `plot=full` lengthens the
///   `Plot`), `s=` searches and `Season=`/`Episode=` lists as `OMDbAnswers` describes them: the
///   film's stored body, OMDb's misses such as `Incorrect IMDb ID.` / `Movie not found!` (200),
///   `No API key provided.` / `Invalid API key!` / `Request limit reached!` (401), or an injected fault.
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
        /// The listening socket, -1 before start.
        var listener: Int32 = -1
        /// The bound port.
        var port: Int?
        /// Set once by `stop()`.
        var isStopping = false
        /// Open connection sockets, so `stop()` can shut them down.
        var connections: Set<Int32> = []
    }

    /// The configuration the server was created with (runtime behaviour changes are not reflected here).
    public let configuration: StandInConfiguration
    private let engine: StandInEngine
    private let lifecycle = Locked(Lifecycle())
    private let acceptFinished = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// Creates a server; nothing is bound until `start()`.
    public init(configuration: StandInConfiguration = StandInConfiguration()) {
        self.configuration = configuration
        engine = StandInEngine(configuration: configuration)
    }

    /// Binds the configured address and port, starts accepting, and returns the bound port.
    public func start() throws(StandInServerError) -> Int {
        signal(SIGPIPE, SIG_IGN)
        let listener = try Self.makeListener(host: configuration.host, port: configuration.port)
        let port = try Self.boundPort(of: listener)
        let alreadyStarted = lifecycle.withLock { state -> Bool in
            guard state.listener < 0, !state.isStopping else { return true }
            state.listener = listener
            state.port = port
            return false
        }
        if alreadyStarted {
            close(listener)
            throw .alreadyStarted
        }
        let thread = Thread { [self] in acceptLoop(listener) }
        thread.name = "omdb-standin-accept"
        thread.start()
        return port
    }

    /// The bound port while running, otherwise nil.
    public var port: Int? {
        lifecycle.withLock { $0.isStopping ? nil : $0.port }
    }

    /// Stops accepting, closes every connection, and returns once the threads have let go of them
    /// (waiting at most about two seconds). Safe to call more than once.
    public func stop() {
        let listener = lifecycle.withLock { state -> Int32 in
            guard !state.isStopping, state.listener >= 0 else { return -1 }
            state.isStopping = true
            return state.listener
        }
        guard listener >= 0 else { return }
        acceptFinished.wait()
        close(listener)
        lifecycle.withLock { state in
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
        for _ in 0..<200 where !lifecycle.withLock({ $0.connections.isEmpty }) {
            usleep(10_000)
        }
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
    public func updateBehaviour(_ behaviour: StandInBehaviour) {
        engine.updateBehaviour(behaviour)
    }

    // MARK: - Accepting

    private func acceptLoop(_ listener: Int32) {
        defer { acceptFinished.signal() }
        while !lifecycle.withLock({ $0.isStopping }) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EMFILE || errno == ENFILE { usleep(10_000) }
                continue
            }
            let admitted = lifecycle.withLock { state -> Bool in
                guard !state.isStopping else { return false }
                state.connections.insert(connection)
                return true
            }
            guard admitted else {
                close(connection)
                break
            }
            engine.noteConnectionAccepted()
            Self.configure(connection: connection, idleTimeoutSeconds: configuration.idleTimeoutSeconds)
            let thread = Thread { [self] in serve(connection) }
            thread.name = "omdb-standin-connection"
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        var channel = ConnectionChannel(descriptor: connection)
        var resetOnClose = false
        exchanges: while let request = channel.nextRequest() {
            let keepAlive = request.keepAlive && !lifecycle.withLock({ $0.isStopping })
            let reply = engine.handle(request)
            if reply.delayMilliseconds > 0 { usleep(UInt32(min(reply.delayMilliseconds, 60_000)) * 1_000) }
            switch reply.action {
            case .respond(let response):
                let body = request.method == "HEAD" ? [] : response.body
                guard channel.send(response.head(keepAlive: keepAlive) + body), keepAlive else { break exchanges }
            case .truncate(let response):
                _ = channel.send(response.head(keepAlive: false) + response.body.prefix(response.body.count / 2))
                break exchanges
            case .reset:
                resetOnClose = true
                break exchanges
            }
        }
        lifecycle.withLock { _ = $0.connections.remove(connection) }
        channel.close(reset: resetOnClose)
    }

    // MARK: - Socket setup

    private static func makeListener(host: String, port: Int) throws(StandInServerError) -> Int32 {
        guard (0...65_535).contains(port) else { throw .invalidPort(port) }
        guard let hostAddress = ipv4Address(host) else { throw .invalidHost(host) }
        #if os(Linux)
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else { throw .system(call: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr = hostAddress
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(listener)
            throw .system(call: "bind \(host):\(port)", errno: code)
        }
        guard listen(listener, 1024) == 0 else {
            let code = errno
            close(listener)
            throw .system(call: "listen", errno: code)
        }
        return listener
    }

    /// Whether `text` is an IPv4 address (a dotted quad such as `10.0.0.1`) the server can listen on.
    public static func isIPv4Address(_ text: String) -> Bool { ipv4Address(text) != nil }

    /// `text` as an IPv4 address, or nil when it is not one.
    private static func ipv4Address(_ text: String) -> in_addr? {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1 ? address : nil
    }

    private static func boundPort(of listener: Int32) throws(StandInServerError) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard result == 0 else {
            let code = errno
            close(listener)
            throw .system(call: "getsockname", errno: code)
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func configure(connection: Int32, idleTimeoutSeconds: Int) {
        var one: Int32 = 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: max(1, idleTimeoutSeconds), tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
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

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .invalidPort(let port): "port \(port) is outside 0...65535"
        case .invalidHost(let host): "\(host) is not an IPv4 address (such as 127.0.0.1)"
        case .alreadyStarted: "the server was already started"
        case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
