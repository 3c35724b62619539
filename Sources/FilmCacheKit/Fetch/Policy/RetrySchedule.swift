/// The retry state of one film over one run, turning failures into instants on a clock.
///
/// A thin stateful layer over ``Backoff``: it counts failed attempts and converts each wait
/// into the instant at which the film may be tried again.
package struct RetrySchedule<C: Clock>: Sendable where C.Duration == Duration {
    /// What to do after a failed attempt.
    public enum Action: Sendable, Hashable {
        /// Try the film again at or after this instant.
        case retry(at: C.Instant)
        /// Stop trying this film in this run.
        case giveUp(Backoff.GiveUpReason)
    }

    /// The policy the schedule follows.
    package let backoff: Backoff
    /// How many attempts have failed so far.
    public private(set) var failures: Int = 0

    /// Creates the schedule for a film that has not been tried yet.
    public init(backoff: Backoff = .default) {
        self.backoff = backoff
    }

    /// Records a failed attempt that ended at `now` and says when, if ever, to try again.
    ///
    /// `retryAfter` is the server's requested wait, already resolved against the wall clock.
    package mutating func recordFailure(
        at now: C.Instant,
        retryAfter: Duration? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> Action {
        failures += 1
        switch backoff.decide(afterFailures: failures, retryAfter: retryAfter, using: &generator) {
        case .retry(let wait): return .retry(at: now.advanced(by: wait))
        case .giveUp(let reason): return .giveUp(reason)
        }
    }

    /// Records a failed attempt using the system's random number generator.
    package mutating func recordFailure(at now: C.Instant, retryAfter: Duration? = nil) -> Action {
        var generator = SystemRandomNumberGenerator()
        return recordFailure(at: now, retryAfter: retryAfter, using: &generator)
    }
}
