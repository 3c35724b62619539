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
    /// The answer's status line and fields up to its length's value, as NIO's HTTP/1 encoder writes the route's.
    private let head: [UInt8] = {
        let hit = ServeResponse(status: 200, body: [], outcome: .hit)
        let fields = HTTPHeaders(ServeHTTP.fields(type: hit.contentType, extra: hit.headers))
        let lines = fields.map { "\($0.name): \($0.value)\r\n" }.joined()
        return Array("HTTP/1.1 200 OK\r\n\(lines)\(HTTPField.Name.contentLength.rawName): ".utf8)
    }()
    private static let dateName = Array("\r\n\(HTTPField.Name.date.rawName): ".utf8)

    init(engine: ServeEngine, metrics: ServeMetrics, time: TimeSource, maxQuery: Int) {
        self.engine = engine
        self.metrics = metrics
        self.time = time
        self.maxQuery = maxQuery
    }

    /// The whole answer, its `Date` field `date`, to a `GET /?QUERY` whose `query` is such a hit;
    /// nil when the request takes the route.
    func answer(query: UnsafeRawBufferPointer, date: String, allocator: ByteBufferAllocator) -> ByteBuffer? {
        guard query.count <= maxQuery, let plain = ServeQuery.plainFilm(query) else { return nil }
        let start = time.elapsed()
        guard let body = engine.memoHit(token: plain.token, imdbID: plain.imdbID) else { return nil }
        metrics.record(.hit, after: time.elapsed() - start)
        let length = String(body.count)
        let capacity = head.count + length.utf8.count + Self.dateName.count + date.utf8.count + 4 + body.count
        var buffer = allocator.buffer(capacity: capacity)
        buffer.writeBytes(head)
        buffer.writeString(length)
        buffer.writeBytes(Self.dateName)
        buffer.writeString(date)
        buffer.writeStaticString("\r\n\r\n")
        buffer.writeBytes(body)
        return buffer
    }
}

/// Answers the memory hits of a connection on its bytes, before NIO's HTTP/1 decoder: with no
/// request parts, no task, router, request object, conversion to swift-http-types or encoder.
///
/// Each whole request head at the start of the unread bytes is read (``RequestHead``):
/// - a memory hit is answered there, while every request passed on is answered and the
///   connection can take the answer (a client that pipelines and does not read gets the rest
///   queued behind the router's answers, which wait for it: answers never pile up here);
/// - any other request of that form (no body) is passed on alone to the decoder, and so is every
///   hit read while one passed on is still unanswered: answers leave in the order requests came;
/// - anything else, and all that follows on the connection, is the decoder's, as it comes.
///
/// A head not whole yet is kept until the rest comes, as the decoder would keep it; the
/// connection's head deadline (``ServeConnection``) closes a connection that sends one too slowly.
final class RawHits: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let hits: MemoHits
    private let connection: ServeConnection
    /// The longest head kept while it comes; past it the bytes are the decoder's, with its limits.
    private let limit: Int
    private let maxFields: Int
    private let maxHitHead: Int
    private var date = DateFieldText()
    /// The start of a head whose end has not come yet.
    private(set) var unfinished: ByteBuffer?
    /// Every byte from now on is the decoder's.
    private var passing = false
    /// Answers written here since the last flush.
    private var unflushed = false
    /// Bytes of the read under way were passed on.
    private var readPassedOn = false

    init(hits: MemoHits, connection: ServeConnection, limit: Int, maxFields: Int, maxHitHead: Int) {
        self.hits = hits
        self.connection = connection
        self.limit = limit
        self.maxFields = maxFields
        self.maxHitHead = maxHitHead
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !passing else {
            readPassedOn = true
            return context.fireChannelRead(data)
        }
        var bytes = unwrapInboundIn(data)
        if var kept = unfinished {
            unfinished = nil
            let lineEnded = bytes.readableBytesView.contains(UInt8(ascii: "\n"))
            kept.writeBuffer(&bytes)
            // Nothing more can be told of a head until one of its lines ends: a head that comes a byte
            // at a time is read again once a line, not once a byte.
            guard lineEnded || kept.readableBytes >= limit else {
                unfinished = kept
                return
            }
            bytes = kept
        }
        while bytes.readableBytes > 0 {
            let scan = bytes.withUnsafeReadableBytes {
                RequestHead.scan($0, limit: limit, maxFields: maxFields, maxHitHead: maxHitHead)
            }
            switch scan {
            case .unfinished:
                // Only the head's bytes are kept, not the requests answered before it in the buffer.
                bytes.discardReadBytes()
                unfinished = bytes
                return
            case .other:
                pass(context)
                readPassedOn = true
                return context.fireChannelRead(wrapInboundOut(bytes))
            case .whole(let head):
                if let query = head.query, connection.mayAnswerBeforeDecoder,
                    let answer = answer(query, in: bytes, context)
                {
                    bytes.moveReaderIndex(forwardBy: head.length)
                    context.write(wrapOutboundOut(answer), promise: nil)
                    unflushed = true
                    connection.answeredBeforeDecoder()
                } else {
                    let request = bytes.readSlice(length: head.length)!
                    let read = connection.requestsRead
                    connection.passedOnWhole()
                    readPassedOn = true
                    context.fireChannelRead(wrapInboundOut(request))
                    // The decoder read it as one request, and the connection goes on after it; or else
                    // (it refused the request, or the request closes the connection) all that follows
                    // is the decoder's, which refuses it as it always did.
                    guard connection.requestsRead == read + 1, !head.closes else {
                        pass(context)
                        if bytes.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(bytes)) }
                        return
                    }
                }
            }
        }
    }

    private func answer(_ query: Range<Int>, in bytes: ByteBuffer, _ context: ChannelHandlerContext) -> ByteBuffer? {
        let date = date.text(for: hits.time.now)
        return bytes.withUnsafeReadableBytes {
            hits.answer(
                query: UnsafeRawBufferPointer(rebasing: $0[query]), date: date, allocator: context.channel.allocator)
        }
    }

    /// Flushes the answers written here; tells the handlers after it of the read's end only when
    /// they were given a part of it (a read whose every request was answered here is none of theirs).
    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        if readPassedOn {
            readPassedOn = false
            context.fireChannelReadComplete()
        }
    }

    /// The end of the input: a head begun is the decoder's to judge, as it would have been.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let kept = unfinished, case .inputClosed = event as? ChannelEvent {
            pass(context)
            context.fireChannelRead(wrapInboundOut(kept))
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func pass(_ context: ChannelHandlerContext) {
        passing = true
        unfinished = nil
    }
}

/// A connection's HTTP/1 requests as the decoder reads them: keeps the connection's deadlines for
/// every request, those answered before the decoder (``RawHits``) included.
///
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

    private var context: ChannelHandlerContext?
    /// Requests read whose answer has not ended yet: with requests pipelined, the end of one
    /// answer starts no wait while a later request is still being answered.
    private var unanswered = 0
    /// Whole requests ``RawHits`` passed on whose answer has not ended yet.
    private var passedOn = 0
    /// Requests read whole so far.
    private(set) var requestsRead = 0

    /// How long a connection may wait for a head: the head deadline or the idle timeout, the shorter.
    private let headWait: TimeAmount
    private let idleTimeout: TimeAmount
    /// Since when the connection waits for a request's head; `nil` while one is being answered.
    private var waitingSince: NIODeadline?
    /// When the last part of the request being read came; `nil` once its end is read.
    private var readingSince: NIODeadline?
    /// The one timer of the connection, when set, and when it fires.
    private var timer: (task: Scheduled<Void>, at: NIODeadline)?

    init(headDeadline: Duration, idleTimeout: Duration) {
        self.headWait = .nanoseconds(min(headDeadline, idleTimeout).inNanoseconds)
        self.idleTimeout = .nanoseconds(idleTimeout.inNanoseconds)
    }

    /// Whether a request may be answered before the decoder now: every request passed on is
    /// answered, and the connection can take more.
    var mayAnswerBeforeDecoder: Bool {
        passedOn == 0 && context?.channel.isWritable == true
    }

    /// A request answered before the decoder: the wait for the next head starts now.
    func answeredBeforeDecoder() {
        guard let context else { return }
        waitingSince = .now()
        arm(context)
    }

    /// A whole request passed on to the decoder by ``RawHits``.
    func passedOnWhole() {
        passedOn += 1
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        waitingSince = .now()
        arm(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        timer?.task.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            readingSince = .now()
            unanswered += 1
            waitingSince = nil
            arm(context)
        case .body:
            readingSince = .now()
        case .end:
            readingSince = nil
            requestsRead += 1
        }
        context.fireChannelRead(data)
    }

    /// The answers to the requests passed on.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            passedOn = max(passedOn - 1, 0)
            if unanswered > 0 {
                unanswered -= 1
                if unanswered == 0 {
                    waitingSince = .now()
                    arm(context)
                }
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
