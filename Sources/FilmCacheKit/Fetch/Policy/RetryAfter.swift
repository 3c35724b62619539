import Foundation

/// A parsed HTTP `Retry-After` header: a number of seconds or an HTTP date.
package enum RetryAfter: Sendable, Hashable {
    /// Wait this long from when the response arrived (`Retry-After: 120`).
    case delay(Duration)
    /// Wait until this instant (`Retry-After: Wed, 21 Oct 2026 07:28:00 GMT`).
    case date(Date)

    /// Parses a header value; `nil` when it is neither delta-seconds nor an HTTP date.
    ///
    /// Accepts the three HTTP date forms recipients must understand: IMF-fixdate, RFC 850 and
    /// asctime. Delta-seconds too large to matter are clamped to 100 years.
    public init?(headerValue: String) {
        let text = headerValue.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            let seconds = Int64(text) ?? Int64.max
            self = .delay(.seconds(min(seconds, RetryAfter.longestDelaySeconds)))
        } else if let date = HTTPDate.parse(text) {
            self = .date(date)
        } else {
            return nil
        }
    }

    /// How long to wait counted from `now`; never negative (a date in the past means "now").
    public func delay(relativeTo now: Date) -> Duration {
        switch self {
        case .delay(let duration):
            return max(.zero, duration)
        case .date(let date):
            return max(.zero, Duration(timeInterval: date.timeIntervalSince(now)))
        }
    }

    private static let longestDelaySeconds: Int64 = 100 * 366 * 86_400
}
