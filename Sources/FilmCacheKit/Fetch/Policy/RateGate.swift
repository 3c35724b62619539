/// A shared rate limit that concurrent fetches wait on, sleeping on an injected clock.
///
/// A thin actor around ``RateLimiter``: each ``acquire()`` books the next free slot and sleeps
/// until it, so waiters are served in the order they arrived and each wakes exactly once.
public actor RateGate<C: Clock> where C.Duration == Duration {
    /// The clock the gate reads and sleeps on.
    public nonisolated let clock: C
    private var limiter: RateLimiter<C>

    /// Creates a gate that enforces `limiter` on `clock`.
    public init(limiter: RateLimiter<C>, clock: C) {
        self.limiter = limiter
        self.clock = clock
    }

    /// Creates a gate admitting `rate` requests per second with bursts of up to `burst`.
    public init(rate: Double, burst: Int = 1, clock: C) {
        self.init(limiter: RateLimiter(rate: rate, burst: burst), clock: clock)
    }

    /// Waits until one more request may be sent, then returns; the request is counted.
    ///
    /// Throws `CancellationError` if the task is cancelled before or while waiting; the slot it
    /// had booked is then lost, which keeps the achieved rate at or under the limit.
    public func acquire() async throws {
        try Task.checkCancellation()
        let now = clock.now
        let start = limiter.reserve(at: now)
        if start > now {
            try await clock.sleep(until: start, tolerance: nil)
        }
    }
}
