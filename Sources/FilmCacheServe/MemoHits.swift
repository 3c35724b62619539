import FilmCacheKit
import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// What answers a plain film request from the engine's memory where the request is read:
/// `GET /?apikey=TOKEN&i=ID` with the token accepted and the film's answer fresh
/// (``ServeEngine/memoHit(token:imdbID:)``), with the status, headers and body the router's route
/// gives it, counted and timed in the metrics as the route counts it.
struct MemoHits: Sendable {
    let engine: ServeEngine
    let metrics: ServeMetrics
    let time: TimeSource
    /// The longest query taken; a longer one takes the route, which refuses it.
    let maxQuery: Int
    /// The answer's fields but its length and date.
    private let fields: HTTPFields = {
        let hit = ServeResponse(status: 200, body: [], outcome: .hit)
        return ServeHTTP.fields(type: hit.contentType, extra: hit.headers)
    }()

    init(engine: ServeEngine, metrics: ServeMetrics, time: TimeSource, maxQuery: Int) {
        self.engine = engine
        self.metrics = metrics
        self.time = time
        self.maxQuery = maxQuery
    }

    /// The answer to `request` (its `Date` field `date`) when it is such a hit; nil when it takes the route.
    func answer(_ request: HTTPTypes.HTTPRequest, date: String) -> (head: HTTPTypes.HTTPResponse, body: [UInt8])? {
        guard request.method == .get, request.headerFields[.connection] == nil, let path = request.path,
            path.utf8.starts(with: "/?".utf8)
        else { return nil }
        let query = path.dropFirst(2)
        guard query.utf8.count <= maxQuery, let plain = ServeQuery.plainFilm(query) else { return nil }
        let start = time.elapsed()
        guard let body = engine.memoHit(token: plain.token, imdbID: plain.imdbID) else { return nil }
        metrics.record(.hit, after: time.elapsed() - start)
        var fields = fields
        fields[.contentLength] = String(body.count)
        fields[.date] = date
        return (HTTPTypes.HTTPResponse(status: .ok, headerFields: fields), body)
    }
}

/// Answers the requests ``MemoHits`` takes on the connection's event loop, without a task, the
/// router or a request object; passes every other request on to the router, and so every request
/// read while one passed on is still unanswered: answers leave in the order their requests came.
///
/// Stands after Hummingbird's connection state handler, which counts every request in and every
/// answer out (idle timeout, graceful shutdown); ``MemoHitInstaller`` puts it there.
final class MemoHitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let hits: MemoHits
    /// Requests passed on whose answer has not ended yet.
    private var unanswered = 0
    /// The body and end of a request answered here are not passed on.
    private var dropping = false
    /// Answers written here since the last flush.
    private var unflushed = false
    private var date = DateFieldText()

    init(hits: MemoHits) {
        self.hits = hits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if unanswered == 0, let answer = hits.answer(request, date: date.text(for: hits.time.now)) {
                context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                context.write(
                    wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: answer.body))), promise: nil)
                context.write(wrapOutboundOut(.end(nil)), promise: nil)
                unflushed = true
                dropping = true
                return
            }
            unanswered += 1
        case .body:
            if dropping { return }
        case .end:
            if dropping {
                dropping = false
                return
            }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), unanswered > 0 { unanswered -= 1 }
        context.write(data, promise: promise)
    }
}

/// Puts a ``MemoHitHandler`` after Hummingbird's connection state handler when the connection's
/// first request part is read (the pipeline is whole by then), passes that part on and leaves the
/// pipeline: every request part would otherwise pass through it.
final class MemoHitInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let hits: MemoHits

    init(hits: MemoHits) {
        self.hits = hits
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let pipeline = context.pipeline.syncOperations
        let handler = MemoHitHandler(hits: hits)
        if let state = try? pipeline.context(handlerType: HTTPConnectionStateHandler.self) {
            try? pipeline.addHandler(handler, position: .after(state.handler))
        } else {
            try? pipeline.addHandler(handler, position: .after(self))
        }
        context.fireChannelRead(data)
        pipeline.removeHandler(context: context, promise: nil)
    }
}

/// The `Date` field's text (RFC 9110's IMF-fixdate) of the current second, made once a second.
struct DateFieldText {
    private var second = Int.min
    private var text = ""

    /// The text for `instant`'s second.
    mutating func text(for instant: Date) -> String {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
        guard seconds != second else { return text }
        second = seconds
        text = HTTPDate.format(secondsSince1970: seconds)
        return text
    }
}
