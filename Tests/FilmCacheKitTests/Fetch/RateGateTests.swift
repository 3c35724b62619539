import FilmCacheKit
import Synchronization
import Testing

/// Collects the offsets at which acquirers got through, from many tasks.
private final class Recorder: Sendable {
    let offsets = Mutex<[Duration]>([])
}

extension FetchPolicyTests {
    /// The actor around the limiter: concurrent acquirers on a manual clock.
    @Suite("RateGate")
    struct RateGateTests {
        /// Runs `count` concurrent acquirers, advancing the clock whenever all of them are asleep or done,
        /// and returns the offsets at which they got through.
        static func drive(gate: RateGate<ManualClock>, clock: ManualClock, count: Int) async throws -> [Duration] {
            let passed = Recorder()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        try await gate.acquire()
                        let now = clock.now.offset
                        passed.offsets.withLock { $0.append(now) }
                    }
                }
                while passed.offsets.withLock({ $0.count }) < count {
                    if passed.offsets.withLock({ $0.count }) + clock.sleeperCount == count,
                        let next = clock.nextDeadline
                    {
                        clock.advance(to: next)
                    }
                    await Task.yield()
                }
                try await group.waitForAll()
            }
            return passed.offsets.withLock { $0 }.sorted()
        }

        @Test("the burst passes without the clock moving")
        func burstPassesAtOnce() async throws {
            let clock = ManualClock()
            let gate = RateGate(rate: 5, burst: 3, clock: clock)
            for _ in 0..<3 { try await gate.acquire() }
            #expect(clock.now == clock.zero)
            #expect(clock.sleeperCount == 0)
        }

        @Test("many concurrent acquirers go through one slot at a time at the steady rate")
        func concurrentAcquirers() async throws {
            let clock = ManualClock()
            let gate = RateGate(rate: 10, burst: 2, clock: clock)
            let passed = try await Self.drive(gate: gate, clock: clock, count: 40)
            let expected: [Duration] = [.zero, .zero] + (1...38).map { .milliseconds(100 * $0) }
            #expect(passed == expected)
            let instants = passed.map { ManualClock.Instant(offset: $0) }
            #expect(RateMeasurement(sendInstants: instants).maxInWindow <= 12)
        }

        @Test("an unlimited gate never sleeps")
        func unlimitedGate() async throws {
            let clock = ManualClock()
            let gate = RateGate(rate: 0, clock: clock)
            for _ in 0..<1_000 { try await gate.acquire() }
            #expect(clock.sleeperCount == 0)
        }

        @Test("a cancelled waiter throws and later acquirers still keep the rate")
        func cancellation() async throws {
            let clock = ManualClock()
            let gate = RateGate(rate: 1, burst: 1, clock: clock)
            try await gate.acquire()
            let waiter = Task { try await gate.acquire() }
            await clock.waitForSleepers(1)
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }

            let next = Task { try await gate.acquire() }
            await clock.waitForSleepers(1)
            // The cancelled waiter's slot (t+1s) is forfeited, so the next one waits for t+2s.
            #expect(clock.nextDeadline == clock.zero.advanced(by: .seconds(2)))
            clock.advance(by: .seconds(2))
            try await next.value
        }

        @Test("a task already cancelled does not get through")
        func alreadyCancelled() async {
            let clock = ManualClock()
            let gate = RateGate(rate: 1, clock: clock)
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await gate.acquire()
            }
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }
}
