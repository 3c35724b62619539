import NIOCore
import NIOHTTP1

/// Marks an HTTP/1.0 request without `Connection: keep-alive` (and any request not kept alive)
/// `Connection: close`, so the server closes the connection after its answer, as HTTP/1.0 expects.
///
/// Stands before the HTTP/1 codec, where requests still carry their version (Hummingbird's
/// requests do not): `filmcache serve` and the OMDb stand-in each put it there.
package final class HTTP10Close: ChannelInboundHandler, RemovableChannelHandler {
    /// Request parts from the HTTP/1 decoder.
    package typealias InboundIn = HTTPServerRequestPart
    /// The same parts, a head perhaps marked.
    package typealias InboundOut = HTTPServerRequestPart

    /// Creates the handler.
    package init() {}

    /// Marks a head that is not kept alive; passes everything on.
    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }
}
