import FilmCacheKit
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
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
    public var headDeadline = Duration.seconds(10)
    /// The longest request line (the query string in it) and header block taken; longer is refused.
    public var maxRequestLine = 8 * 1024
    public var maxHeaderBytes = 16 * 1024

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}

/// `filmcache serve`'s HTTP side: OMDb's `GET /?apikey=…&…` answered by the engine, `/healthz`,
/// `/quota`, `/metrics`, and the dashboard at `/` (a request with no query).
public enum ServeHTTP {
    /// Runs the server until SIGTERM or SIGINT, then stops taking connections, lets the requests
    /// in flight finish, and writes the engine's last demand and ledger release.
    ///
    /// `listening` is told the port once the socket is bound.
    public static func run(
        engine: ServeEngine, metrics: ServeMetrics, pages: ServePages, options: ServeListenOptions, logger: Logger,
        listening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        let router = Router(context: BasicRequestContext.self)
        router.get("/") { request, _ -> Response in
            guard let query = request.uri.query, !query.isEmpty else {
                return Self.response(200, Array(await pages.dashboard().utf8), type: "text/html; charset=utf-8")
            }
            guard query.utf8.count <= options.maxRequestLine else {
                metrics.count(.refused)
                return Self.response(414, OMDbAnswer.error("Request-URI Too Long"))
            }
            let started = ContinuousClock.now
            let answer = await engine.respond(to: QueryItems.parse(query[...]))
            metrics.record(answer.outcome, after: started.duration(to: .now))
            return Self.response(answer.status, answer.body, type: answer.contentType, extra: answer.headers)
        }
        router.get("/healthz") { _, _ -> Response in
            let health = await pages.health()
            return Self.response(health.ok ? 200 : 503, Array(health.json.utf8))
        }
        router.get("/quota") { _, _ -> Response in
            guard let json = await pages.quotaJSON() else {
                return Self.response(503, OMDbAnswer.error(OMDbAnswer.errorGettingData))
            }
            return Self.response(200, Array(json.utf8))
        }
        router.get("/metrics") { _, _ -> Response in
            await metrics.updateQuota(from: pages)
            return Self.response(200, metrics.exposition(), type: "text/plain; version=0.0.4; charset=utf-8")
        }
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestHeadDeadline(deadline: options.headDeadline)],
            idleTimeout: .nanoseconds(options.idleTimeout.inNanoseconds),
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: options.maxHeaderBytes, maxHeaderListSize: options.maxHeaderBytes,
                maxHeaderFieldCount: 100))
        let app = Application(
            router: router, server: .http1(configuration: http1),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                logger.notice("listening", metadata: ["address": "\(options.host):\(port)"])
                await listening(port)
            },
            logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: EngineService(engine: engine)), .init(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// A response with `body`; OMDb's answers also allow any origin (browsers call OMDb directly)
    /// and carry the engine's `extra` headers.
    private static func response(
        _ status: Int, _ body: [UInt8], type: String = "application/json; charset=utf-8",
        extra: [(name: String, value: String)]? = nil
    ) -> Response {
        var fields: HTTPFields = [.contentType: type]
        if let extra {
            fields[.accessControlAllowOrigin] = "*"
            for (name, value) in extra {
                if let name = HTTPField.Name(name) { fields[name] = value }
            }
        }
        return Response(
            status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// The engine's background work (demand, other processes' limit notices) as a service: it runs
/// until the graceful shutdown reaches it — after the server, which is shut down first and lets its
/// requests finish — then writes the last demand and gives unsent reservations back.
private struct EngineService: Service {
    let engine: ServeEngine

    func run() async throws {
        let work = Task { [engine] in await engine.run() }
        try? await gracefulShutdown()
        work.cancel()
        await work.value
        // Not in this (cancelled) task: the last writes must not be cut short.
        await Task { [engine] in await engine.finish() }.value
    }
}

/// Closes a connection whose next request's head does not arrive within `deadline` of the
/// connection opening or of the previous answer's end.
private final class RequestHeadDeadline: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?

    init(deadline: Duration) {
        self.deadline = .nanoseconds(deadline.inNanoseconds)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: deadline) {
            loopBound.value.close(promise: nil)
        }
    }
}
