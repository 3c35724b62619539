import Dispatch
import Synchronization
import Testing

@testable import FilmCachePostgres

/// `race`: the first side to end answers; what the other gives after goes to `leftover`.
@Suite struct RaceTests {
    /// Waits without regard to cancellation, as a statement sent to a frozen server does.
    static func wait(milliseconds: Int) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { continuation.resume() }
        }
    }

    @Test func aValueGivenAfterTheRaceIsDecidedGoesToLeftoverNotNowhere() async throws {
        let left = Mutex<[Int]>([])
        let (ended, end) = AsyncStream.makeStream(of: Void.self)
        let winner = try await race {
            // Ignores its cancellation, as a connect in flight does, and ends after the race.
            await Self.wait(milliseconds: 200)
            return 1
        } against: {
            2
        } leftover: { late in
            left.withLock { $0.append(late) }
            end.yield()
        }
        #expect(winner == 2)
        var waiting = ended.makeAsyncIterator()
        await waiting.next()
        #expect(left.withLock { $0 } == [1])
    }

    @Test func aCancelledCallerIsAnsweredBeforeEitherSideEnds() async throws {
        let ended = Mutex(0)
        let task = Task {
            try await race {
                await Self.wait(milliseconds: 5_000)
                ended.withLock { $0 += 1 }
                return 1
            } against: {
                await Self.wait(milliseconds: 5_000)
                ended.withLock { $0 += 1 }
                return 2
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ended.withLock { $0 } == 0, "answered while both sides still ran")
    }
}
