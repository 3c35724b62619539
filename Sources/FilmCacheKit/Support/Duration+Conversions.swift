import Foundation

extension Duration {
    /// The duration in seconds as a floating-point number.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, clamped to `Int64`'s range.
    public var inNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return total
    }

    /// Creates a duration from a Foundation time interval.
    init(timeInterval: TimeInterval) {
        self = .seconds(timeInterval)
    }
}
