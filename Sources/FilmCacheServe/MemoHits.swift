import FilmCacheKit
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

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
    /// The answer's fields but its length and date, as the HTTP/1 codec writes the route's.
    private let headers: HTTPHeaders = {
        let hit = ServeResponse(status: 200, body: [], outcome: .hit)
        return HTTPHeaders(ServeHTTP.fields(type: hit.contentType, extra: hit.headers))
    }()

    init(engine: ServeEngine, metrics: ServeMetrics, time: TimeSource, maxQuery: Int) {
        self.engine = engine
        self.metrics = metrics
        self.time = time
        self.maxQuery = maxQuery
    }

    /// The answer to `request` (its `Date` field `date`) when it is such a hit; nil when it takes the route.
    ///
    /// A request with a `Connection` field takes the route: ``HTTP10Close`` marks every one not kept
    /// alive so, and the route closes the connection after its answer.
    func answer(_ request: HTTPRequestHead, date: String) -> (head: HTTPResponseHead, body: [UInt8])? {
        guard request.method == .GET, !request.headers.contains(name: "connection"),
            request.uri.utf8.starts(with: "/?".utf8)
        else { return nil }
        let query = request.uri.dropFirst(2)
        guard query.utf8.count <= maxQuery, let plain = ServeQuery.plainFilm(query) else { return nil }
        let start = time.elapsed()
        guard let body = engine.memoHit(token: plain.token, imdbID: plain.imdbID) else { return nil }
        metrics.record(.hit, after: time.elapsed() - start)
        var headers = headers
        headers.add(name: HTTPField.Name.contentLength.rawName, value: String(body.count))
        headers.add(name: HTTPField.Name.date.rawName, value: date)
        return (HTTPResponseHead(version: .http1_1, status: .ok, headers: headers), body)
    }
}

/// Answers the requests ``MemoHits`` takes on the connection's event loop, as the HTTP/1 decoder
/// reads them: without a task, the router, a request object or the conversions to and from
/// swift-http-types. Passes every other request on to the codec and the router, and so every
/// request read while one passed on is still unanswered: answers leave in the order their
/// requests came.
///
/// Stands before the codec, and so before Hummingbird's connection state handler: that one sees
/// only the requests passed on, which is all it needs for a graceful shutdown (a hit is answered
/// within the read that brought it); ``ConnectionDeadlines``, before this handler, sees every request.
final class MemoHitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

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
                    wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))),
                    promise: nil)
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
