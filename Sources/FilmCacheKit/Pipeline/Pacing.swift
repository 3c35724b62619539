import Synchronization

/// The run-wide brakes every fetch worker shares: the rate limiter and the circuit breaker.
final class Pacing<C: Clock>: Sendable where C.Duration == Duration {
    /// `nil` when the rate is unlimited, so the hot path skips it.
    let rateGate: RateGate<C>?
    private let state: Mutex<State>

    private struct State {
        var breaker: CircuitBreaker<C>
        var successes = 0
        var unreachable: String?
        /// Connections that could not be opened, in a row.
        var refusedInARow = 0
        /// Answers that were not OMDb's, in a row.
        var foreignInARow = 0
    }

    /// Answers that are not OMDb's, in a row, that end the run (``StopReason/notOMDb``): the
    /// breaker's default pause threshold, so with default settings the run ends before it pauses.
    static var foreignLimit: Int { 8 }
    /// Connections refused in a row, before any answer, that end the run (``StopReason/unreachable``).
    static var refusedLimit: Int { 3 }

    /// The brakes `configuration` asks for, timed on `clock`.
    init(configuration: WarmConfiguration, clock: C) {
        let limiter = RateLimiter<C>(rate: configuration.rate, burst: configuration.burst)
        rateGate = limiter.isUnlimited ? nil : RateGate(limiter: limiter, clock: clock)
        let settings = configuration.circuitBreaker
        state = Mutex(
            State(
                breaker: CircuitBreaker(
                    pauseAfter: settings.pauseAfter, stopAfter: settings.stopAfter, coolDown: settings.coolDown)))
    }

    /// What new work should do now.
    func breakerCheck(at now: C.Instant) -> CircuitBreaker<C>.Action {
        state.withLock { $0.breaker.check(at: now) }
    }

    /// A definite answer from OMDb.
    func recordSuccess() {
        state.withLock {
            $0.breaker.recordSuccess()
            $0.successes += 1
            $0.foreignInARow = 0
            $0.refusedInARow = 0
        }
    }

    /// An answer from OMDb that is a failure (an error body on a 4xx): it counts against the breaker.
    func recordRejected(at now: C.Instant) -> CircuitBreaker<C>.Action {
        state.withLock {
            $0.foreignInARow = 0
            $0.refusedInARow = 0
            return $0.breaker.recordFailure(at: now)
        }
    }

    /// An answer that is not OMDb's, a failure for the breaker; returns whether enough came in a
    /// row to end the run, and what the breaker says new work should do.
    func recordForeign(at now: C.Instant) -> (
        endsRun: Bool, action: CircuitBreaker<C>.Action
    ) {
        state.withLock {
            $0.refusedInARow = 0
            $0.foreignInARow += 1
            let action = $0.breaker.recordFailure(at: now)
            return ($0.foreignInARow >= Self.foreignLimit, action)
        }
    }

    /// A transient failure; returns what new work should do.
    func recordFailure(at now: C.Instant) -> CircuitBreaker<C>.Action {
        state.withLock { $0.breaker.recordFailure(at: now) }
    }

    /// Remembers that a connection could not be made at all; returns whether the run should end
    /// as unreachable (several in a row before any answer).
    func noteUnreachable(_ why: String) -> Bool {
        state.withLock {
            $0.unreachable = why
            $0.refusedInARow += 1
            return $0.successes == 0 && $0.foreignInARow == 0 && $0.refusedInARow >= Self.refusedLimit
        }
    }

    /// Why OMDb could not be reached, when no request ever got an answer.
    var unreachableOnly: String? {
        state.withLock { $0.successes == 0 ? $0.unreachable : nil }
    }
}
