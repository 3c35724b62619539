import FilmCacheKit
import Foundation
import SplitMix
import Testing

extension FetchPolicyTests {
    /// Exponential backoff with full jitter, attempt limits and Retry-After.
    @Suite("Backoff")
    struct BackoffTests {
        /// The per-film schedule under test, on the manual clock.
        typealias Schedule = RetrySchedule<ManualClock>

        @Test("the jitter ceiling doubles from the base and stops at the cap")
        func ceilings() {
            let backoff = Backoff(base: .seconds(1), cap: .seconds(60))
            let ceilings = (1...10).map { backoff.ceiling(afterFailures: $0) }
            #expect(ceilings == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60].map { Duration.seconds($0) })
            #expect(backoff.ceiling(afterFailures: 1_000) == .seconds(60))
            #expect(backoff.ceiling(afterFailures: .max) == .seconds(60))
            #expect(Backoff(base: .milliseconds(250), cap: .seconds(2)).ceiling(afterFailures: 3) == .seconds(1))
        }

        @Test("every retry falls within [now, now + min(cap, base·2^(n-1))] on the clock", arguments: 0..<50)
        func scheduleBounds(seed: UInt64) {
            let clock = ManualClock()
            let backoff = Backoff(base: .milliseconds(500), cap: .seconds(30), maxAttempts: 10)
            var schedule = Schedule(backoff: backoff)
            var generator = SplitMix64(seed: seed)
            for failure in 1..<10 {
                let failedAt = clock.now
                guard case .retry(let at) = schedule.recordFailure(at: failedAt, using: &generator) else {
                    Issue.record("failure \(failure) of 10 must be retried")
                    return
                }
                let wait = failedAt.duration(to: at)
                #expect(wait >= .zero)
                #expect(wait <= backoff.ceiling(afterFailures: failure))
                #expect(schedule.failures == failure)
                clock.advance(to: at)
            }
        }

        @Test("the jitter is full: draws spread over the whole window")
        func fullJitter() {
            let backoff = Backoff(base: .seconds(1), cap: .seconds(60), maxAttempts: 10)
            var generator = SplitMix64(seed: 7)
            let ceiling = backoff.ceiling(afterFailures: 4)
            var waits: [Duration] = []
            for _ in 0..<2_000 {
                guard case .retry(let wait) = backoff.decide(afterFailures: 4, using: &generator) else {
                    Issue.record("must retry")
                    return
                }
                waits.append(wait)
            }
            #expect(waits.allSatisfy { $0 >= .zero && $0 <= ceiling })
            #expect(waits.min()! < ceiling / 20)
            #expect(waits.max()! > ceiling * 19 / 20)
            let mean = waits.reduce(Duration.zero, +) / waits.count
            #expect(mean > ceiling * 2 / 5 && mean < ceiling * 3 / 5)
        }

        @Test("the same seed gives the same schedule")
        func deterministic() {
            func run() -> [Schedule.Action] {
                var schedule = Schedule(backoff: Backoff(maxAttempts: 6))
                var generator = SplitMix64(seed: 2026)
                let origin = ManualClock.Instant(offset: .zero)
                return (0..<6).map { _ in schedule.recordFailure(at: origin, using: &generator) }
            }
            #expect(run() == run())
        }

        @Test("the last allowed attempt ends in give-up", arguments: [1, 2, 5, 8])
        func maxAttempts(maxAttempts: Int) {
            var schedule = Schedule(backoff: Backoff(maxAttempts: maxAttempts))
            var generator = SplitMix64(seed: 1)
            let now = ManualClock.Instant(offset: .seconds(100))
            for _ in 1..<maxAttempts {
                guard case .retry = schedule.recordFailure(at: now, using: &generator) else {
                    Issue.record("must retry before the last attempt")
                    return
                }
            }
            #expect(
                schedule.recordFailure(at: now, using: &generator) == .giveUp(.attemptsExhausted(attempts: maxAttempts))
            )
        }

        @Test("Retry-After wins over jitter, even beyond the cap")
        func retryAfterWins() {
            var schedule = Schedule(backoff: Backoff(cap: .seconds(60), maxWait: .seconds(600)))
            var generator = SplitMix64(seed: 3)
            let now = ManualClock.Instant(offset: .seconds(10))
            #expect(
                schedule.recordFailure(at: now, retryAfter: .seconds(120), using: &generator)
                    == .retry(at: now.advanced(by: .seconds(120))))
            #expect(
                schedule.recordFailure(at: now, retryAfter: .seconds(3), using: &generator)
                    == .retry(at: now.advanced(by: .seconds(3))))
            #expect(schedule.recordFailure(at: now, retryAfter: .zero, using: &generator) == .retry(at: now))
            #expect(
                schedule.recordFailure(at: now, retryAfter: .seconds(-5), using: &generator) == .retry(at: now))
        }

        @Test("a Retry-After beyond the policy's longest wait gives the film up for this run")
        func retryAfterTooLong() {
            let backoff = Backoff(cap: .seconds(60), maxWait: .seconds(300))
            var generator = SplitMix64(seed: 3)
            #expect(
                backoff.decide(afterFailures: 1, retryAfter: .seconds(301), using: &generator)
                    == .giveUp(.retryAfterTooLong(.seconds(301))))
            #expect(
                backoff.decide(afterFailures: 1, retryAfter: .seconds(300), using: &generator)
                    == .retry(after: .seconds(300)))
        }

        @Test("running out of attempts wins over a Retry-After")
        func exhaustedBeatsRetryAfter() {
            let backoff = Backoff(maxAttempts: 2)
            var generator = SplitMix64(seed: 3)
            #expect(
                backoff.decide(afterFailures: 2, retryAfter: .seconds(1), using: &generator)
                    == .giveUp(.attemptsExhausted(attempts: 2)))
        }

        @Test("an HTTP-date Retry-After resolved on the test's wall clock sets the retry instant")
        func retryAfterDateOnWallClock() throws {
            let clock = ManualClock(epoch: TestDates.utc(2026, 10, 21, 7, 26, 0))
            clock.advance(by: .seconds(30))
            let header = try #require(RetryAfter(headerValue: "Wed, 21 Oct 2026 07:28:00 GMT"))
            let wait = header.delay(relativeTo: clock.wallClock.now())
            #expect(wait == .seconds(90))
            var schedule = Schedule()
            var generator = SplitMix64(seed: 9)
            #expect(
                schedule.recordFailure(at: clock.now, retryAfter: wait, using: &generator)
                    == .retry(at: clock.zero.advanced(by: .seconds(120))))
        }

        @Test("settings out of range are clamped")
        func clamping() {
            let backoff = Backoff(base: .seconds(-1), cap: .seconds(-2), maxAttempts: 0, maxWait: .seconds(-3))
            #expect(backoff.base == .zero)
            #expect(backoff.cap == .zero)
            #expect(backoff.maxAttempts == 1)
            #expect(backoff.maxWait == .zero)
        }
    }
}
