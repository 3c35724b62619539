/// What rate a series of sends actually achieved, for checking a limiter against reality.
///
/// A benchmark records the instant of every send (for example with `ContinuousClock.now`) and
/// builds one of these to compare the achieved rate and the busiest window against the limit.
public struct RateMeasurement: Sendable, Hashable {
    /// How many sends there were.
    public let count: Int
    /// Time from the first send to the last; zero for fewer than two sends.
    package let span: Duration
    /// The window length used for ``maxInWindow``.
    public let window: Duration
    /// The most sends in any half-open window `[t, t + window)`.
    public let maxInWindow: Int

    /// Measures `instants`, in any order, with windows of `window` (one second by default).
    public init<I: InstantProtocol>(sendInstants instants: [I], window: Duration = .seconds(1))
    where I.Duration == Duration {
        let sorted = instants.sorted()
        self.count = sorted.count
        self.window = window
        if let first = sorted.first, let last = sorted.last {
            self.span = first.duration(to: last)
        } else {
            self.span = .zero
        }
        // Any window can slide right until it starts at a send without losing one, so only
        // windows that start at a send need checking.
        var best = 0
        var end = 0
        for start in sorted.indices {
            let limit = sorted[start].advanced(by: window)
            if end < start { end = start }
            while end < sorted.count, sorted[end] < limit { end += 1 }
            best = max(best, end - start)
        }
        self.maxInWindow = best
    }

    /// Sends per second between the first and the last: `(count - 1) / span`.
    ///
    /// For evenly spaced sends this is exactly the spacing's rate, whatever the burst at the start.
    /// Zero for fewer than two sends or a zero span.
    package var meanRate: Double {
        let seconds = span.inSeconds
        guard count > 1, seconds > 0 else { return 0 }
        return Double(count - 1) / seconds
    }

    /// Sends per second over a run of the given length: `count / elapsed`.
    public func rate(over elapsed: Duration) -> Double {
        let seconds = elapsed.inSeconds
        guard seconds > 0 else { return 0 }
        return Double(count) / seconds
    }
}
