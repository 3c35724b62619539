import FilmCacheKit
import Testing

extension FetchPolicyTests {
    /// Pausing and stopping a run on consecutive transient failures.
    @Suite("CircuitBreaker")
    struct CircuitBreakerTests {
        /// The breaker under test, on the manual clock.
        typealias Breaker = CircuitBreaker<ManualClock>

        @Test("failures below the pause threshold let work proceed")
        func belowThreshold() {
            let clock = ManualClock()
            var breaker = Breaker(pauseAfter: 3, stopAfter: 6, coolDown: .seconds(30))
            #expect(breaker.check(at: clock.now) == .proceed)
            #expect(breaker.recordFailure(at: clock.now) == .proceed)
            #expect(breaker.recordFailure(at: clock.now) == .proceed)
            #expect(breaker.consecutiveFailures == 2)
        }

        @Test("the N-th failure in a row pauses new work for the cool-down, then work resumes")
        func pauseAndResume() {
            let clock = ManualClock()
            var breaker = Breaker(pauseAfter: 3, stopAfter: 6, coolDown: .seconds(30))
            breaker.recordFailure(at: clock.now)
            breaker.recordFailure(at: clock.now)
            clock.advance(by: .seconds(5))
            let pausedUntil = clock.now.advanced(by: .seconds(30))
            #expect(breaker.recordFailure(at: clock.now) == .pause(until: pausedUntil))
            clock.advance(by: .seconds(29))
            #expect(breaker.check(at: clock.now) == .pause(until: pausedUntil))
            clock.advance(by: .seconds(1))
            #expect(breaker.check(at: clock.now) == .proceed)
        }

        @Test("each further failure before the stop threshold re-arms the cool-down from that failure")
        func rearm() {
            let clock = ManualClock()
            var breaker = Breaker(pauseAfter: 2, stopAfter: 10, coolDown: .seconds(10))
            breaker.recordFailure(at: clock.now)
            breaker.recordFailure(at: clock.now)
            clock.advance(by: .seconds(10))
            #expect(breaker.check(at: clock.now) == .proceed)
            #expect(breaker.recordFailure(at: clock.now) == .pause(until: clock.now.advanced(by: .seconds(10))))
        }

        @Test("a failure reported late never shortens a cool-down already running")
        func lateFailureKeepsLongerPause() {
            let clock = ManualClock()
            var breaker = Breaker(pauseAfter: 1, stopAfter: 10, coolDown: .seconds(10))
            let later = clock.now.advanced(by: .seconds(5))
            breaker.recordFailure(at: later)
            #expect(breaker.recordFailure(at: clock.now) == .pause(until: later.advanced(by: .seconds(10))))
        }

        @Test("a success resets the count and lifts a pause")
        func successResets() {
            let clock = ManualClock()
            var breaker = Breaker(pauseAfter: 3, stopAfter: 6, coolDown: .seconds(30))
            for _ in 0..<5 { breaker.recordFailure(at: clock.now) }
            breaker.recordSuccess()
            #expect(breaker.consecutiveFailures == 0)
            #expect(breaker.check(at: clock.now) == .proceed)
            for _ in 0..<2 { #expect(breaker.recordFailure(at: clock.now) == .proceed) }
        }

        @Test("the M-th failure in a row stops the run, and it stays stopped")
        func stop() {
            let clock = ManualClock()
            var breaker = Breaker(pauseAfter: 3, stopAfter: 6, coolDown: .seconds(30))
            for _ in 0..<5 { breaker.recordFailure(at: clock.now) }
            #expect(breaker.recordFailure(at: clock.now) == .stop(.consecutiveFailures(6)))
            breaker.recordSuccess()
            clock.advance(by: .seconds(3_600))
            #expect(breaker.check(at: clock.now) == .stop(.consecutiveFailures(6)))
            #expect(breaker.recordFailure(at: clock.now) == .stop(.consecutiveFailures(6)))
        }

        @Test("failures interleaved with successes never trip the breaker")
        func interleaved() {
            let clock = ManualClock()
            var breaker = Breaker(pauseAfter: 2, stopAfter: 3, coolDown: .seconds(1))
            for _ in 0..<1_000 {
                #expect(breaker.recordFailure(at: clock.now) == .proceed)
                breaker.recordSuccess()
            }
        }

        @Test("thresholds are clamped: at least 1, and stop no earlier than pause")
        func clamping() {
            let clock = ManualClock()
            var breaker = Breaker(pauseAfter: 0, stopAfter: -1, coolDown: .seconds(-4))
            #expect(breaker.pauseAfter == 1)
            #expect(breaker.stopAfter == 1)
            #expect(breaker.coolDown == .zero)
            #expect(breaker.recordFailure(at: clock.now) == .stop(.consecutiveFailures(1)))
        }
    }
}
