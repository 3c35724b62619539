/// Why a request got no complete HTTP answer.
///
/// The transport maps its own errors (libcurl codes) onto these cases; the policy treats all of
/// them as transient.
public enum TransportFailure: Sendable, Hashable {
    /// The connection or the transfer took longer than allowed.
    case timeout
    /// The peer reset or closed the connection mid-transfer.
    case connectionReset
    /// No connection could be made (DNS, refused, TLS handshake).
    case connectFailed
    /// The body grew past the size cap, so it was cut off.
    case bodyTooLarge
    /// The body ended before its declared length.
    case truncated
    /// Anything else, described for the log.
    case other(String)
}
