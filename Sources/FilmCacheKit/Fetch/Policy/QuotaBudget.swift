import Foundation

/// How many requests a quota day allows once a safety reserve is kept back.
///
/// OMDb shows no remaining count, and other users of the same key may spend some of it, so a
/// share of the limit is never planned for. The reserve is rounded up, so it is never eaten:
/// 1,000 with 5% reserves 50 and leaves 950 usable.
public struct QuotaBudget: Sendable, Hashable {
    /// Requests the key allows per quota day.
    public let limit: Int
    /// Share of the limit kept back, in percent (5 means 5%), clamped to 0...100.
    public let reservePercent: Double

    /// Creates a budget for a key allowing `limit` requests a day, keeping `reservePercent` back.
    public init(limit: Int, reservePercent: Double = 5) {
        self.limit = max(0, limit)
        self.reservePercent = reservePercent.isNaN ? 0 : min(100, max(0, reservePercent))
    }

    /// A budget for a key without a daily limit.
    public static let unlimited = QuotaBudget(limit: .max, reservePercent: 0)

    /// Requests kept back: `limit · reservePercent / 100`, rounded up.
    public var reserve: Int {
        guard limit < .max, reservePercent > 0 else { return 0 }
        let exact = Double(limit) * reservePercent / 100
        // Round away binary noise (1,000 × 7% is 70.00000000000001) before rounding up.
        let cleaned = (exact * 1_000_000).rounded() / 1_000_000
        return min(limit, Int(cleaned.rounded(.up)))
    }

    /// Requests that may be planned in a day: the limit minus the reserve.
    public var usable: Int { limit - reserve }

    /// Requests still usable after `used` have been counted today; never negative.
    public func left(used: Int) -> Int {
        max(0, usable - max(0, used))
    }
}
