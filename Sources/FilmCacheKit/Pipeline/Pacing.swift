import Synchronization

/// The run-wide brakes every fetch worker shares: the rate limiter and the circuit breaker.
final class Pacing: Sendable {
    /// `nil` when the rate is unlimited, so the hot path skips it.
    let rateGate: RateGate<ContinuousClock>?
    private let state: Mutex<State>

    private struct State {
        var breaker: CircuitBreaker<ContinuousClock>
        var successes = 0
        var unreachable: String?
    }

    init(configuration: WarmConfiguration) {
        let limiter = RateLimiter<ContinuousClock>(rate: configuration.rate, burst: configuration.burst)
        rateGate = limiter.isUnlimited ? nil : RateGate(limiter: limiter, clock: ContinuousClock())
        state = Mutex(State(breaker: configuration.circuitBreaker))
    }

    /// What new work should do now.
    func breakerCheck(at now: ContinuousClock.Instant) -> CircuitBreaker<ContinuousClock>.Action {
        state.withLock { $0.breaker.check(at: now) }
    }

    /// A definite answer from OMDb.
    func recordSuccess() {
        state.withLock {
            $0.breaker.recordSuccess()
            $0.successes += 1
        }
    }

    /// A transient failure; returns what new work should do.
    func recordFailure(at now: ContinuousClock.Instant) -> CircuitBreaker<ContinuousClock>.Action {
        state.withLock { $0.breaker.recordFailure(at: now) }
    }

    /// Remembers that a connection could not be made at all.
    func noteUnreachable(_ why: String) {
        state.withLock { $0.unreachable = why }
    }

    /// Why OMDb could not be reached, when no request ever got an answer.
    var unreachableOnly: String? {
        state.withLock { $0.successes == 0 ? $0.unreachable : nil }
    }
}
