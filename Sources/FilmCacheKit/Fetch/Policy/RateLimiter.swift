/// A requests-per-second limit with a burst, as a pure value over a clock's instants.
///
/// Implements the generic cell rate algorithm (GCRA): it keeps one instant, the theoretical
/// arrival time of the next request, so it costs nothing to copy and never drifts. In any
/// interval of length `L` it admits at most `burst + L · rate` requests, and after an idle spell
/// the full burst is available again.
///
/// The type never reads a clock; callers pass `now`. ``request(at:)`` answers "may I send now?"
/// without booking anything when the answer is no, which suits a poll-driven transfer loop;
/// ``reserve(at:)`` books the next free slot, which suits many concurrent waiters (see ``RateGate``).
public struct RateLimiter<C: Clock>: Sendable where C.Duration == Duration {
    /// What a caller should do with one request.
    public enum Decision: Sendable, Hashable {
        /// Send now; the request has been counted.
        case proceed
        /// Do not send yet; ask again at or after this instant. Nothing has been counted.
        case wait(until: C.Instant)
    }

    /// Requests per second; zero, negative, NaN or infinite means unlimited.
    public let rate: Double
    /// How many requests may go back to back after an idle spell; at least 1.
    public let burst: Int
    /// Time between requests at the steady rate; `nil` when unlimited.
    public let interval: Duration?
    /// How far ahead of the schedule a request may run: `(burst - 1) · interval`.
    private let tolerance: Duration
    /// When the next request would be due if requests went exactly at the steady rate.
    private var theoreticalArrival: C.Instant?

    /// Creates a limiter admitting `rate` requests per second with bursts of up to `burst`.
    public init(rate: Double, burst: Int = 1) {
        self.rate = rate
        self.burst = max(1, burst)
        if rate.isFinite, rate > 0 {
            let interval = Duration.seconds(1) / rate
            self.interval = interval
            self.tolerance = interval * (self.burst - 1)
        } else {
            self.interval = nil
            self.tolerance = .zero
        }
    }

    /// A limiter that admits everything.
    public static var unlimited: RateLimiter { RateLimiter(rate: .infinity) }

    /// Whether this limiter admits every request at once.
    package var isUnlimited: Bool { interval == nil }

    /// The earliest instant, not before `now`, at which a request would be admitted.
    public func earliestStart(at now: C.Instant) -> C.Instant {
        guard let theoreticalArrival else { return now }
        let allowed = theoreticalArrival.advanced(by: .zero - tolerance)
        return max(allowed, now)
    }

    /// Admits and counts a request at `now`, or says when to ask again without counting it.
    public mutating func request(at now: C.Instant) -> Decision {
        guard let interval else { return .proceed }
        let start = earliestStart(at: now)
        if start > now { return .wait(until: start) }
        theoreticalArrival = max(theoreticalArrival ?? now, now).advanced(by: interval)
        return .proceed
    }

    /// Books the next free slot for a request made at `now` and returns when it may be sent.
    ///
    /// The result is `now` when the request may go at once. Every call books a slot, so call it
    /// once per request; a slot that is booked and then not used is simply lost, which can only
    /// make the achieved rate lower, never higher.
    public mutating func reserve(at now: C.Instant) -> C.Instant {
        guard let interval else { return now }
        let start = earliestStart(at: now)
        theoreticalArrival = max(theoreticalArrival ?? start, start).advanced(by: interval)
        return start
    }
}
