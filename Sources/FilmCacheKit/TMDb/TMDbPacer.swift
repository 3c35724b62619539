import Foundation

/// TMDb's pace, apart from OMDb's: a rate (TMDb's ceiling is about 40 a second per address), a
/// pause every worker waits out when TMDb answers 429 with `Retry-After`, and the breaker.
///
/// A worker asks ``acquire()`` before each request; it returns when the request may go, or
/// throws when the breaker stopped the run. A 429 moves the pause's end for every worker at once,
/// including those already waiting for their slot: no request leaves inside a `Retry-After`
/// this process has heard.
package actor TMDbPacer {
    private let clock: any Clock<Duration>
    private let elapsed: @Sendable () -> Duration
    private var limiter: RateLimiter<ContinuousClock>
    /// The pause's end, on ``elapsed``'s scale.
    private var pausedUntil: Duration = .zero
    private var breaker: CircuitBreaker<ContinuousClock>
    /// The breaker's view of elapsed time as an instant, for its arithmetic.
    private let origin = ContinuousClock.Instant.now
    /// Why the breaker stopped the run, once it has.
    package private(set) var stopped: String?
    /// 429 answers heard.
    package private(set) var rateLimited = 0

    /// A pacer of `rate` requests a second (0: no limit) on `time`'s clock.
    package init(rate: Double, pauseAfter: Int, stopAfter: Int, coolDown: Duration, time: TimeSource) {
        clock = time.clock
        elapsed = time.elapsed
        limiter = RateLimiter(rate: rate > 0 ? rate : .infinity, burst: 1)
        breaker = CircuitBreaker(pauseAfter: pauseAfter, stopAfter: stopAfter, coolDown: coolDown)
    }

    /// The current moment as an instant the limiter and breaker count in (only differences matter).
    private var now: ContinuousClock.Instant { origin.advanced(by: elapsed()) }

    /// Waits until a request may go: past any pause, then at its slot of the rate. Throws
    /// `CancellationError` when cancelled and ``TMDbStopped`` once the breaker stopped the run.
    package func acquire() async throws {
        while true {
            try Task.checkCancellation()
            if let stopped { throw TMDbStopped(reason: stopped) }
            if case .pause(let until) = breaker.check(at: now) {
                try await sleep(until: origin.duration(to: until))
                continue
            }
            if elapsed() < pausedUntil {
                try await sleep(until: pausedUntil)
                continue
            }
            let slot = limiter.reserve(at: now)
            let slotTime = origin.duration(to: slot)
            if slotTime > elapsed() { try await sleep(until: slotTime) }
            // A 429 heard while this worker waited for its slot holds it too.
            if elapsed() < pausedUntil { continue }
            return
        }
    }

    /// TMDb said to wait `delay`: every worker waits from now until it has passed.
    package func pause(for delay: Duration) {
        rateLimited += 1
        pausedUntil = max(pausedUntil, elapsed() + delay)
    }

    /// A definite answer came (found or not): the breaker's count starts again.
    package func recordSuccess() { breaker.recordSuccess() }

    /// A transient failure came (5xx, a transport failure, a body that is not TMDb's).
    package func recordFailure() {
        if case .stop(.consecutiveFailures(let count)) = breaker.recordFailure(at: now) {
            stopped = stopped ?? "\(count) TMDb failures in a row"
        }
    }

    /// The run must stop (TMDb refused the token): every later ``acquire()`` throws.
    package func stop(_ why: String) { stopped = stopped ?? why }

    private func sleep(until target: Duration) async throws {
        let wait = target - elapsed()
        if wait > .zero { try await clock.sleep(for: wait) }
    }
}

/// The breaker, or a refused token, stopped TMDb's part of a run.
package struct TMDbStopped: Error, Sendable, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
}
