/// The one seam between the fetch stage and the network: GET a URL, get status and body.
///
/// Production uses `CurlMultiTransport`; unit tests may swap in a scripted one.
public protocol HTTPTransport: Sendable {
    /// Performs one GET. Throws only for transport failures; any HTTP status is a response.
    func get(_ url: String) async throws(TransportFailure) -> HTTPResponse
}

/// A complete HTTP response.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    /// The `Retry-After` header's value, if the server sent one.
    public var retryAfter: String?
    /// The `Content-Type` header's value, if the server sent one.
    public var contentType: String?

    public init(status: Int, body: [UInt8], retryAfter: String? = nil, contentType: String? = nil) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
        self.contentType = contentType
    }
}
