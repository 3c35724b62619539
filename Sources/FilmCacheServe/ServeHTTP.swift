import FilmCacheKit
import Foundation
import HTTP10Close
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix
import ServiceLifecycle

/// How `filmcache serve` listens.
public struct ServeListenOptions: Sendable {
    public var host: String
    /// 0: a free port, which the log line "listening" names.
    public var port: Int
    /// A connection with no request for this long is closed.
    public var idleTimeout = Duration.seconds(60)
    /// A request's line and headers must arrive within this long of the connection opening or
    /// the previous answer, or the connection is closed: a client sending a byte at a time holds
    /// no connection for long.
    public var headDeadline = Setting.requestHeadTimeout.default
    /// The longest request line (the query string in it) and header block taken; longer is refused.
    package var maxRequestLine = 8 * 1024
    package var maxHeaderBytes = 16 * 1024
    /// The most header fields a request may have.
    package static let maxHeaderFields = 100
    /// Threads that read connections and answer memory hits; nil: NIO's shared group, one a core.
    public var ioThreads: Int?

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

/// `filmcache serve`'s HTTP side: OMDb's `GET /?apikey=…&…` answered by the engine, `/healthz`,
/// `/quota`, `/metrics`, and the dashboard at `/` (a request with no query).
///
/// With a ``TMDbServeEngine``, TMDb's paths under `/3/` are answered too (`/3/movie/550?api_key=TOKEN`),
/// so an app changes only TMDb's base URL.
///
/// `/healthz` and `/metrics` are open, for load balancers and Prometheus (they show counts, no
/// film). The dashboard and `/quota` show what apps ask for and the key's day: they take a client
/// token, as `Authorization: Bearer TOKEN`, as HTTP Basic's password (a browser asks for it; any
/// user name), or, for `/quota`, as `?apikey=TOKEN`. Every route answers `HEAD` as `GET`, without
/// the body; an HTTP/1.0 request without `Connection: keep-alive` gets its connection closed.
public enum ServeHTTP {
    /// Runs the server and the engine's services in one group until SIGTERM or SIGINT, then stops
    /// taking connections, lets the requests in flight finish, writes the last demand and gives
    /// unsent reservations back; `beside` (the database pool, the tokens' reload) are shut down last.
    ///
    /// `listening` is told the port once the socket is bound.
    public static func run(
        engine: ServeEngine, tmdb: TMDbServeEngine? = nil, metrics: ServeMetrics, pages: ServePages,
        options: ServeListenOptions, time: TimeSource, logger: Logger, beside: [any Service] = [],
        listening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        // The connections' threads: as many as asked, or NIO's shared group (one a core).
        let loops = options.ioThreads.map { MultiThreadedEventLoopGroup(numberOfThreads: $0) }
        let app = application(
            engine: engine, tmdb: tmdb, metrics: metrics, pages: pages, options: options, time: time, logger: logger,
            eventLoops: loops.map { .shared($0) } ?? .singleton, listening: listening)
        // Shut down in reverse: the server first (its requests finish), then the last demand, then
        // the ledger's release, then what the others stood on.
        let services: [any Service] =
            beside + [
                ExhaustionWatchService(watcher: engine.exhaustion), DemandFlushService(flusher: engine.demand), app,
            ]
        // Memory is filled beside the server, and the end of that ends nothing else.
        let fill = ServiceGroupConfiguration.ServiceConfiguration(
            service: MemoryFillService(engine: engine, logger: logger), successTerminationBehavior: .ignore,
            failureTerminationBehavior: .ignore)
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) } + [fill], gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await group.run()
        } catch {
            try? await loops?.shutdownGracefully()
            throw error
        }
        try? await loops?.shutdownGracefully()
    }

    /// The HTTP application: its routes over `engine`, `metrics` and `pages`, listening as `options`
    /// say on `eventLoops`, each answer's time measured on `time`'s clock.
    ///
    /// Tests drive it in process (HummingbirdTesting's `.router`) or on a real port (`.live`).
    public static func application(
        engine: ServeEngine, tmdb: TMDbServeEngine? = nil, metrics: ServeMetrics, pages: ServePages,
        options: ServeListenOptions, time: TimeSource, logger: Logger,
        eventLoops: EventLoopGroupProvider = .singleton, listening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        /// `handler` for GET, and for HEAD with the body left out (its length kept).
        func route(_ path: RouterPath, _ handler: @escaping @Sendable (Request) async -> Response) {
            router.get(path) { request, _ in await handler(request) }
            router.head(path) { request, _ in
                var response = await handler(request)
                response.body = ResponseBody(contentLength: response.body.contentLength) { _ in }
                return response
            }
        }
        route("/") { request -> Response in
            guard let query = request.uri.query, !query.isEmpty else {
                guard Self.authorized(request, engine: engine) else { return Self.unauthorized(html: true) }
                return Self.response(200, Array(await pages.dashboard().utf8), type: "text/html; charset=utf-8")
            }
            guard query.utf8.count <= options.maxRequestLine else {
                metrics.count(.refused)
                return Self.response(414, OMDbAnswer.error("Request-URI Too Long"))
            }
            let (answer, took) = await timed(on: time.clock) { await engine.respond(to: QueryItems.parse(query[...])) }
            metrics.record(answer.outcome, after: took)
            return Self.response(answer.status, answer.body, type: answer.contentType, extra: answer.headers)
        }
        if let tmdb { routeTMDb(tmdb, metrics: metrics, options: options, time: time, route: route) }
        route("/healthz") { _ -> Response in
            let health = await pages.health()
            return Self.response(health.ok ? 200 : 503, Array(health.json.utf8))
        }
        route("/quota") { request -> Response in
            guard Self.authorized(request, engine: engine) else { return Self.unauthorized(html: false) }
            guard let json = await pages.quotaJSON() else {
                return Self.response(503, OMDbAnswer.error(OMDbAnswer.errorGettingData))
            }
            return Self.response(200, Array(json.utf8))
        }
        route("/metrics") { _ -> Response in
            await metrics.updateQuota(from: pages)
            return Self.response(200, metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8")
        }
        let hits = MemoHits(engine: engine, metrics: metrics, time: time, maxQuery: options.maxRequestLine)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                BeforeCodecInstaller(hits: hits, options: options)
            ],
            // ServeConnection keeps the idle timeout: Hummingbird's would see only the requests the
            // memory hits pass on.
            idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: options.maxHeaderBytes, maxHeaderListSize: options.maxHeaderBytes,
                maxHeaderFieldCount: ServeListenOptions.maxHeaderFields))
        let app = Application(
            router: router, server: .http1(configuration: http1),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                logger.notice("listening", metadata: ["address": "\(options.host):\(port)"])
                await listening(port)
            },
            eventLoopGroupProvider: eventLoops, logger: logger)
        return app
    }

    /// TMDb's paths, `/3/…`, answered by `tmdb` in TMDb's shapes and counted apart in `metrics`.
    private static func routeTMDb(
        _ tmdb: TMDbServeEngine, metrics: ServeMetrics, options: ServeListenOptions, time: TimeSource,
        route: (RouterPath, @escaping @Sendable (Request) async -> Response) -> Void
    ) {
        let respond: @Sendable (Request) async -> Response = { request in
            let query = request.uri.query ?? ""
            guard query.utf8.count <= options.maxRequestLine, request.uri.path.utf8.count <= options.maxRequestLine
            else {
                metrics.recordTMDb(.refused, after: .zero)
                return Self.response(414, TMDbServeAnswer.tooLong, type: TMDbServeAnswer.contentType, extra: [])
            }
            let (answer, took) = await timed(on: time.clock) {
                await tmdb.respond(
                    path: request.uri.path, items: QueryItems.parse(query[...]),
                    authorization: request.headers[.authorization])
            }
            metrics.recordTMDb(answer.outcome, after: took)
            return Self.response(answer.status, answer.body, type: answer.contentType, extra: answer.headers)
        }
        // `/3` itself and `/3/` too: TMDb's 404, as for any path it does not have.
        route("/3", respond)
        route("/3/**", respond)
    }

    /// What `body` returns, and how long it took on `clock`.
    private static func timed<C: Clock, T>(
        on clock: C, _ body: () async -> T
    ) async -> (T, Duration) where C.Duration == Duration {
        let start = clock.now
        let value = await body()
        return (value, start.duration(to: clock.now))
    }

    /// Whether `request` carries a client token: `Authorization: Bearer TOKEN`, HTTP Basic with the
    /// token as its password, or an `apikey` query item.
    static func authorized(_ request: Request, engine: ServeEngine) -> Bool {
        if let value = request.headers[.authorization] {
            let (scheme, credentials) = value.splitOnce(" ")
            switch scheme.lowercased() {
            case "bearer":
                return engine.accepts(token: credentials.trimmingCharacters(in: .whitespaces))
            case "basic":
                guard let data = Data(base64Encoded: credentials.trimmingCharacters(in: .whitespaces)),
                    let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
                else { return false }
                return engine.accepts(token: String(text[text.index(after: colon)...]))
            default:
                return false
            }
        }
        let items = QueryItems.parse((request.uri.query ?? "")[...])
        guard let token = items.last(where: { $0.name.lowercased() == "apikey" })?.value else { return false }
        return engine.accepts(token: token)
    }

    /// 401 with the challenge a browser answers by asking for a user name and password.
    static func unauthorized(html: Bool) -> Response {
        let text = "a client token is needed: Authorization: Bearer TOKEN, or HTTP Basic with the token as the password"
        var response =
            html
            ? response(
                401, Array("<!DOCTYPE html><title>filmcache serve</title><p>\(text)</p>\n".utf8),
                type: "text/html; charset=utf-8")
            : response(401, Array("{\"error\":\"\(text), or ?apikey=TOKEN\"}".utf8))
        response.headers[.wwwAuthenticate] = "Basic realm=\"filmcache serve\", charset=\"UTF-8\""
        return response
    }

    /// A response with `body`; OMDb's answers also allow any origin (browsers call OMDb directly)
    /// and carry the engine's `extra` headers.
    private static func response(
        _ status: Int, _ body: [UInt8], type: String = "application/json; charset=utf-8",
        extra: [(name: String, value: String)]? = nil
    ) -> Response {
        Response(
            status: .init(code: status), headers: fields(type: type, extra: extra),
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An answer's fields but its length and date: `type`, and with `extra` (OMDb's answers), any
    /// origin allowed and the engine's headers.
    static func fields(type: String, extra: [(name: String, value: String)]?) -> HTTPFields {
        var fields: HTTPFields = [.contentType: type]
        if let extra {
            fields[.accessControlAllowOrigin] = "*"
            for (name, value) in extra {
                if let name = HTTPField.Name(name) { fields[name] = value }
            }
        }
        return fields
    }
}

/// Puts the handlers that read a connection before the codec, where requests still carry their
/// version and no conversion to swift-http-types has been paid for yet: ``RawHits`` first of all,
/// before the decoder, then ``HTTP10Close`` and ``ServeConnection`` after it. It stands after the
/// codec, where Hummingbird adds a server's own handlers, and leaves at the first request part.
private final class BeforeCodecInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private let hits: MemoHits
    private let options: ServeListenOptions

    init(hits: MemoHits, options: ServeListenOptions) {
        self.hits = hits
        self.options = options
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        guard let codec = try? pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self) else {
            // Without them the connection would have no deadline at all (Hummingbird's idle timeout is off).
            assertionFailure("no HTTP/1 codec in the pipeline")
            context.close(promise: nil)
            return
        }
        let connection = ServeConnection(headDeadline: options.headDeadline, idleTimeout: options.idleTimeout)
        let raw = RawHits(
            hits: hits, connection: connection, limit: options.maxRequestLine + options.maxHeaderBytes,
            maxFields: ServeListenOptions.maxHeaderFields, maxHitHead: options.maxHeaderBytes)
        for handler: any ChannelHandler in [HTTP10Close(), connection] {
            try? pipeline.addHandler(handler, position: .before(codec.handler))
        }
        try? pipeline.addHandler(raw, position: .first)
    }

    /// Leaves the pipeline at the first request part: every part would otherwise pass through it.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

extension String {
    /// The text before the first `separator` and after it (empty when there is none).
    fileprivate func splitOnce(_ separator: Character) -> (String, String) {
        guard let index = firstIndex(of: separator) else { return (self, "") }
        return (String(self[..<index]), String(self[self.index(after: index)...]))
    }
}
