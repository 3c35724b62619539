import HTTPTypes
import NIOCore
import NIOHTTPTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fault below HTTP, told to a connection's ``StandInWireFaultHandler`` (as a user outbound
/// event) before the response it spoils is written.
enum StandInWireFault: Sendable {
    /// Nothing of the response is sent; the connection is reset (SO_LINGER 0, then close).
    case reset
    /// The head is sent with the full `Content-Length`, then half the body, then the connection closes.
    case truncate
}

/// Spoils the next response on its connection as a ``StandInWireFault`` says; every other response
/// passes untouched.
///
/// Stands after the HTTP/1 codec, where responses are parts (head, body, end), so a truncated
/// answer keeps the head Hummingbird wrote and loses half of its body.
final class StandInWireFaultHandler: ChannelOutboundHandler, RemovableChannelHandler {
    /// Response parts from Hummingbird.
    typealias OutboundIn = HTTPResponsePart
    /// Response parts to the codec.
    typealias OutboundOut = HTTPResponsePart

    private enum Mode {
        /// Responses pass.
        case passing
        /// Everything is dropped: the connection has been reset.
        case reset
        /// Body bytes still to send of a truncated response, and the last write to wait for before closing.
        case truncating(remaining: Int, lastWrite: EventLoopFuture<Void>?)
    }

    private var next: StandInWireFault?
    private var mode = Mode.passing

    /// Creates a handler that passes every response until told a fault.
    init() {}

    /// Takes a ``StandInWireFault`` for the next response; passes other events on.
    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let fault = event as? StandInWireFault else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        next = fault
        promise?.succeed()
    }

    /// Passes, drops or cuts a response part.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(let head) = part, let fault = next {
            next = nil
            switch fault {
            case .reset:
                mode = .reset
                Self.reset(context)
            case .truncate:
                let declared = head.headerFields[.contentLength].flatMap { Int($0) } ?? 0
                mode = .truncating(remaining: declared / 2, lastWrite: nil)
            }
        }
        switch mode {
        case .passing:
            context.write(data, promise: promise)
        case .reset:
            promise?.succeed()
        case .truncating(let remaining, let lastWrite):
            switch part {
            case .head:
                context.write(data, promise: promise)
            case .body(var buffer):
                guard remaining > 0 else {
                    promise?.succeed()
                    return
                }
                let slice = buffer.readSlice(length: min(remaining, buffer.readableBytes)) ?? buffer
                let written = context.eventLoop.makePromise(of: Void.self)
                if let promise { written.futureResult.cascade(to: promise) }
                context.write(wrapOutboundOut(.body(slice)), promise: written)
                mode = .truncating(remaining: remaining - slice.readableBytes, lastWrite: written.futureResult)
            case .end:
                // The end is never sent: the peer sees the connection close short of the declared length.
                promise?.succeed()
                mode = .reset
                context.flush()
                let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                (lastWrite ?? context.eventLoop.makeSucceededVoidFuture()).whenComplete { _ in
                    loopBound.value.close(promise: nil)
                }
            }
        }
    }

    /// Closes the connection with a reset: no FIN, the peer's next read fails.
    private static func reset(_ context: ChannelHandlerContext) {
        guard let socket = context.channel as? any SocketOptionProvider else {
            context.close(promise: nil)
            return
        }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}
