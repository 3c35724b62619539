import Foundation
import Testing

/// The test clock itself: sleeping, waking, cancelling.
@Suite("ManualClock")
struct ManualClockTests {
    @Test("a sleeper wakes only once the clock reaches its deadline")
    func sleeperWakesAtDeadline() async throws {
        let clock = ManualClock()
        let deadline = clock.now.advanced(by: .seconds(5))
        let sleeper = Task { try await clock.sleep(until: deadline) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == deadline)
    }

    @Test("a deadline already passed returns at once")
    func pastDeadlineReturns() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(10))
        try await clock.sleep(until: clock.zero.advanced(by: .seconds(3)))
        try await clock.sleep(for: .zero)
    }

    @Test("cancelling a sleeper throws CancellationError without advancing")
    func cancelledSleeperThrows() async {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == clock.zero)
    }

    @Test("a task cancelled before sleeping throws at once")
    func cancelledBeforeSleeping() async {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(60))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test("advancing past several deadlines wakes all of them")
    func advanceWakesAllDue() async throws {
        let clock = ManualClock()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seconds in 1...10 {
                group.addTask { try await clock.sleep(for: .seconds(seconds)) }
            }
            await clock.waitForSleepers(10)
            #expect(clock.nextDeadline == clock.zero.advanced(by: .seconds(1)))
            clock.advance(to: clock.zero.advanced(by: .seconds(10)))
            try await group.waitForAll()
        }
        #expect(clock.sleeperCount == 0)
    }

    @Test("the wall clock moves with the manual clock")
    func wallClockFollows() {
        let epoch = TestDates.utc(2026, 11, 21, 23, 59, 30)
        let clock = ManualClock(epoch: epoch)
        let wall = clock.wallClock
        #expect(wall.now() == epoch)
        clock.advance(by: .seconds(45))
        #expect(wall.now() == TestDates.utc(2026, 11, 22, 0, 0, 15))
    }
}
