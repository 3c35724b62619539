import Foundation

/// One answer of `filmcache serve`, ready for the HTTP layer to send.
public struct ServeResponse: Sendable {
    /// How the answer was come by, for metrics and the `X-Cache` header.
    public enum Outcome: String, Sendable, CaseIterable {
        /// From the cache, fresh (a film, a stored answer, or a stored negative answer).
        case hit
        /// Fetched from OMDb for this request (or for another asking the same at once).
        case miss
        /// From the cache, past its freshness, because OMDb could not be asked (budget spent, OMDb down).
        case stale
        /// No answer: budget spent or OMDb down with nothing cached, or the cache unreadable.
        case error
        /// Refused before any lookup: no token, an unknown token, a request OMDb would not take.
        case refused
    }

    public var status: Int
    public var body: [UInt8]
    public var contentType = "application/json; charset=utf-8"
    /// Headers beside `Content-Type`: `Age` and `Warning` on a stale answer, `Retry-After` on an
    /// error that passes, `X-Cache` always.
    public var headers: [(name: String, value: String)] = []
    public var outcome: Outcome

    public init(status: Int, body: [UInt8], outcome: Outcome, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.body = body
        self.outcome = outcome
        self.headers = headers + [("X-Cache", outcome.rawValue)]
    }

    /// OMDb's error body with `status`.
    static func error(_ message: String, status: Int, outcome: Outcome, retryAfter: Int? = nil) -> ServeResponse {
        ServeResponse(
            status: status, body: OMDbAnswer.error(message), outcome: outcome,
            headers: retryAfter.map { [("Retry-After", "\(max(1, $0))")] } ?? [])
    }

    /// A cached body past its freshness, `age` seconds old: `Age` and RFC 7234's `Warning: 110`.
    static func stale(_ body: [UInt8], age: TimeInterval) -> ServeResponse {
        ServeResponse(
            status: 200, body: body, outcome: .stale,
            headers: [("Age", "\(max(0, Int(age)))"), ("Warning", #"110 - "Response is Stale""#)])
    }
}
