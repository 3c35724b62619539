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
    package var retryAfter: String?
    /// The `Content-Type` header's value, if the server sent one.
    public var contentType: String?
    /// The `ETag` header's value, if the server sent one.
    public var etag: String?
    /// The `Last-Modified` header's value, if the server sent one.
    public var lastModified: String?

    public init(
        status: Int, body: [UInt8], retryAfter: String? = nil, contentType: String? = nil, etag: String? = nil,
        lastModified: String? = nil
    ) {
        self.status = status
        self.body = body
        self.retryAfter = retryAfter
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }
}

/// A GET with request headers, for transfers that are not OMDb calls (posters): conditional
/// requests, redirects followed, a dropped keep-alive connection retried by libcurl.
public struct HTTPRequest: Sendable, Equatable {
    public var url: String
    /// Extra request header lines, e.g. `If-None-Match: "abc"`.
    public var headers: [String]
    /// Redirects followed (0: none, the rule for OMDb calls).
    package var maxRedirects: Int
    /// The addresses the request and its redirects may connect to.
    package var destinations: DestinationPolicy

    public init(url: String, headers: [String] = [], maxRedirects: Int = 0, destinations: DestinationPolicy = .any) {
        self.url = url
        self.headers = headers
        self.maxRedirects = maxRedirects
        self.destinations = destinations
    }
}

/// A transport that also sends requests with headers.
public protocol HTTPRequestTransport: HTTPTransport {
    /// Performs one GET of `request`. Throws only for transport failures.
    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse
}
