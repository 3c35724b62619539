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

/// A connection's HTTP/1 requests as the decoder reads them: answers the ones ``MemoHits`` takes
/// on the connection's event loop, and keeps the connection's deadlines for every request.
///
/// - **Memory hits** are answered without a task, the router, a request object or the conversions
///   to and from swift-http-types, while the connection can take their answers. Every other
///   request is passed on to the codec and the router, and so is every request read while one
///   passed on is still unanswered: answers leave in the order their requests came.
/// - **Deadlines.** The connection is closed when it waits too long: for its next request's head,
///   past `headDeadline` of the connection opening or of the end of the answer to the last request
///   read (or `idleTimeout`, if shorter); or for the next part of a request being read, past
///   `idleTimeout` of the last. A request read whole is never cut off while it is answered.
///
/// Stands before the codec, and so before Hummingbird's connection state handler: that one sees
/// only the requests passed on, which is all a graceful shutdown needs of it (a hit is answered
/// within the read that brought it); its idle timeout, which would not see the hits, is off.
final class ServeConnection: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let hits: MemoHits
    private var date = DateFieldText()
    /// Requests passed on whose answer has not ended yet: with requests pipelined, the end of one
    /// answer starts no wait while a later request is still being answered.
    private var unanswered = 0
    /// The body and end of a request answered here are not passed on.
    private var dropping = false
    /// Answers written here since the last flush.
    private var unflushed = false

    /// How long a connection may wait for a head: the head deadline or the idle timeout, the shorter.
    private let headWait: TimeAmount
    private let idleTimeout: TimeAmount
    /// Since when the connection waits for a request's head; `nil` while one is being answered.
    private var waitingSince: NIODeadline?
    /// When the last part of the request being read came; `nil` once its end is read.
    private var readingSince: NIODeadline?
    /// The one timer of the connection, when set, and when it fires.
    private var timer: (task: Scheduled<Void>, at: NIODeadline)?

    init(hits: MemoHits, headDeadline: Duration, idleTimeout: Duration) {
        self.hits = hits
        self.headWait = .nanoseconds(min(headDeadline, idleTimeout).inNanoseconds)
        self.idleTimeout = .nanoseconds(idleTimeout.inNanoseconds)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        waitingSince = .now()
        arm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // No wait is under way any more: a firing the cancel came too late for ends there.
        waitingSince = nil
        readingSince = nil
        timer?.task.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let now = NIODeadline.now()
            readingSince = now
            // While the connection cannot take more (a client that pipelines and does not read), the
            // request takes the route, whose answers wait for it: answers never pile up here.
            if unanswered == 0, context.channel.isWritable,
                let answer = hits.answer(request, date: date.text(for: hits.time.now))
            {
                context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                context.write(
                    wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))),
                    promise: nil)
                context.write(wrapOutboundOut(.end(nil)), promise: nil)
                unflushed = true
                dropping = true
                // Answered: the wait for the next head starts now.
                waitingSince = now
                arm(context)
                return
            }
            unanswered += 1
            waitingSince = nil
            arm(context)
        case .body:
            readingSince = .now()
            if dropping { return }
        case .end:
            readingSince = nil
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

    /// The answers to the requests passed on.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), unanswered > 0 {
            unanswered -= 1
            if unanswered == 0 {
                waitingSince = .now()
                arm(context)
            }
        }
        context.write(data, promise: promise)
    }

    /// When the connection is due to close if nothing more comes; `nil` while it only waits on its answers.
    private var due: NIODeadline? {
        switch (waitingSince.map { $0 + headWait }, readingSince.map { $0 + idleTimeout }) {
        case (let waiting?, let reading?): min(waiting, reading)
        case (let waiting?, nil): waiting
        case (nil, let reading?): reading
        case (nil, nil): nil
        }
    }

    /// Sets the timer for when the connection is due, unless it is set to fire by then. It is not
    /// moved later for each request (a timer set and cancelled a request cost a share of every
    /// hit): the one set fires when it fires, and then closes the connection, or is set again for
    /// when the connection is due then. It is moved earlier when the connection becomes due sooner
    /// than it fires (an answer sent while the timer waits on a request's body, for the idle timeout).
    private func arm(_ context: ChannelHandlerContext) {
        guard let due else { return }
        if let timer {
            guard due < timer.at else { return }
            timer.task.cancel()
        }
        schedule(context, at: due)
    }

    private func schedule(_ context: ChannelHandlerContext, at instant: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let task = context.eventLoop.scheduleTask(deadline: instant) {
            let (handler, context) = loopBound.value
            // A timer cancelled too late to stop its firing is no longer the connection's.
            guard handler.timer?.at == instant else { return }
            handler.timer = nil
            guard let due = handler.due else { return }
            if due <= .now() {
                context.close(promise: nil)
            } else {
                handler.schedule(context, at: due)
            }
        }
        timer = (task, instant)
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
