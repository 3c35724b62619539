import HTTP10Close
import NIOCore
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Set up on every accepted connection: counts it, keeps it in the server's open connections
/// while it lasts, and puts ``HTTP10Close`` in front of the HTTP/1 codec.
///
/// Stands after the codec, where Hummingbird adds a server's own handlers, and passes all through.
final class StandInConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// Request parts, passed on untouched.
    typealias InboundIn = HTTPRequestPart

    private let engine: StandInEngine
    private let connections: StandInConnections

    /// Creates the handler for one connection of a server with `engine` and `connections`.
    init(engine: StandInEngine, connections: StandInConnections) {
        self.engine = engine
        self.connections = connections
    }

    /// Counts and records the connection, and installs the HTTP/1.0 close before the codec.
    func handlerAdded(context: ChannelHandlerContext) {
        engine.noteConnectionAccepted()
        connections.insert(context.channel)
        let pipeline = context.pipeline.syncOperations
        guard let codec = try? pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self) else { return }
        try? pipeline.addHandler(HTTP10Close(), position: .before(codec.handler))
    }

    /// Forgets the connection once it has closed.
    func channelInactive(context: ChannelHandlerContext) {
        connections.remove(context.channel)
        context.fireChannelInactive()
    }
}
