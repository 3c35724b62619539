/// Watches consecutive transient failures across all fetches and pauses or ends the run.
///
/// When OMDb or the network is down, every request fails the same way; carrying on burns quota
/// (a request is counted before it is sent) and time. After ``pauseAfter`` consecutive transient
/// failures new work waits for a cool-down; after ``stopAfter`` the run ends cleanly. Any success
/// resets the count. Once stopped, the breaker stays stopped: results still in flight do not
/// restart a run that is shutting down.
///
/// Feed it transient failures only. Definite answers, a film or a permanent miss, are successes
/// here: the service answered.
package struct CircuitBreaker<C: Clock>: Sendable where C.Duration == Duration {
    /// What new work should do.
    public enum Action: Sendable, Hashable {
        /// Start new requests.
        case proceed
        /// Start no new request before this instant.
        case pause(until: C.Instant)
        /// Start no new request in this run.
        case stop(StopReason)
    }

    /// Why the breaker ended the run.
    public enum StopReason: Sendable, Hashable {
        /// This many transient failures came in a row.
        case consecutiveFailures(Int)
    }

    /// Consecutive transient failures that trigger a cool-down; at least 1.
    package let pauseAfter: Int
    /// Consecutive transient failures that end the run; at least ``pauseAfter``.
    package let stopAfter: Int
    /// How long new work waits after a failure at or beyond ``pauseAfter``.
    package let coolDown: Duration
    /// Transient failures since the last success.
    public private(set) var consecutiveFailures = 0
    private var pausedUntil: C.Instant?
    private var stopped: StopReason?

    /// Creates a breaker that pauses after `pauseAfter` and stops after `stopAfter` failures in a row.
    public init(pauseAfter: Int = 5, stopAfter: Int = 20, coolDown: Duration = .seconds(30)) {
        self.pauseAfter = max(1, pauseAfter)
        self.stopAfter = max(self.pauseAfter, stopAfter)
        self.coolDown = max(.zero, coolDown)
    }

    /// What new work should do at `now`.
    public func check(at now: C.Instant) -> Action {
        if let stopped { return .stop(stopped) }
        if let pausedUntil, now < pausedUntil { return .pause(until: pausedUntil) }
        return .proceed
    }

    /// Records a definite answer from the service; resets the failure count and any cool-down.
    package mutating func recordSuccess() {
        guard stopped == nil else { return }
        consecutiveFailures = 0
        pausedUntil = nil
    }

    /// Records a transient failure seen at `now` and returns what new work should do.
    @discardableResult
    package mutating func recordFailure(at now: C.Instant) -> Action {
        guard stopped == nil else { return check(at: now) }
        consecutiveFailures += 1
        if consecutiveFailures >= stopAfter {
            stopped = .consecutiveFailures(consecutiveFailures)
        } else if consecutiveFailures >= pauseAfter {
            let until = now.advanced(by: coolDown)
            pausedUntil = max(pausedUntil ?? until, until)
        }
        return check(at: now)
    }
}
