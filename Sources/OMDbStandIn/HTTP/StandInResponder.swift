import HTTPTypes
import Hummingbird
import NIOCore

/// A request's context: Hummingbird's own, and the connection, which faults below HTTP are told to.
struct StandInRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    let channel: any Channel

    /// Creates the context for a request on `source.channel`.
    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}

/// Hands every request to the engine and writes what it decides: the answer, after the configured
/// latency, or a fault below HTTP for ``StandInWireFaultHandler`` to carry out.
///
/// Every method and path reaches the engine, which answers 404 and 405 itself.
struct StandInResponder: HTTPResponder {
    /// The engine that decides and counts every answer.
    let engine: StandInEngine
    /// Whether the server is stopping (answers then close their connection).
    let isStopping: @Sendable () -> Bool

    /// The engine's answer to `request`.
    func respond(to request: Request, context: StandInRequestContext) async throws -> Response {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(request.headers.count + 1)
        if let authority = request.head.authority { headers.append(("Host", authority)) }
        for field in request.headers { headers.append((field.name.rawName, field.value)) }
        let standInRequest = HTTPRequest(
            method: request.method.rawValue, target: request.head.path ?? "/", headers: headers)
        let reply = engine.handle(standInRequest)
        if reply.delayMilliseconds > 0 {
            // The connection's own event loop keeps the time: no thread waits out the latency.
            let delay = TimeAmount.milliseconds(Int64(min(reply.delayMilliseconds, 60_000)))
            try await context.channel.eventLoop.scheduleTask(in: delay) {}.futureResult.get()
        }
        let keepAlive = standInRequest.keepAlive && !isStopping()
        switch reply.action {
        case .respond(let response):
            return Self.response(response, keepAlive: keepAlive, withBody: standInRequest.method != "HEAD")
        case .truncate(let response):
            try await context.channel.triggerUserOutboundEvent(StandInWireFault.truncate).get()
            return Self.response(response, keepAlive: false, withBody: true)
        case .reset:
            try await context.channel.triggerUserOutboundEvent(StandInWireFault.reset).get()
            return Response(status: .ok)
        }
    }

    /// `response` as Hummingbird's, with its full `Content-Length` (also when the body is left out,
    /// as for `HEAD`) and `Connection` saying whether the connection stays open.
    private static func response(_ response: HTTPResponse, keepAlive: Bool, withBody: Bool) -> Response {
        var fields = HTTPFields()
        fields.reserveCapacity(response.headers.count + 2)
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        fields[.contentLength] = String(response.body.count)
        fields[.connection] = keepAlive ? "keep-alive" : "close"
        let status = HTTPTypes.HTTPResponse.Status(
            code: response.status, reasonPhrase: HTTPResponse.reason(for: response.status))
        guard withBody, !response.body.isEmpty else { return Response(status: status, headers: fields) }
        return Response(
            status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}
