/// Why a request got no complete HTTP answer; what `HTTPTransport.get` throws.
///
/// The transport maps its own errors (libcurl codes) onto these cases; the policy treats all of
/// them as transient.
public enum TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The connection or the transfer took longer than allowed.
    case timeout
    /// The peer reset or closed the connection mid-transfer.
    case connectionReset
    /// No connection could be made (DNS, refused, TLS handshake, connect timeout), so the request
    /// was provably never sent; carries libcurl's words. The only failure whose call is given back.
    case connectFailed(String)
    /// The body grew past the size cap (in bytes), so the transfer was stopped.
    case bodyTooLarge(limit: Int)
    /// The body ended before its declared length.
    case truncated
    /// The connection would have gone to an address the request's ``DestinationPolicy`` refuses;
    /// nothing was sent.
    case refused(DestinationRefusal)
    /// Anything else, described for the log.
    case other(String)

    public var description: String {
        switch self {
        case .timeout: "timed out"
        case .connectFailed(let why): "could not connect: \(why)"
        case .connectionReset: "connection reset"
        case .truncated: "response body truncated"
        case .bodyTooLarge(let limit): "response body larger than \(limit) bytes"
        case .refused(let refusal): refusal.description
        case .other(let why): why
        }
    }
}
