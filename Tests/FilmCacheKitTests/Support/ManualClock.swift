import FilmCacheKit
import Foundation
import Synchronization

/// A clock that only moves when a test advances it, so time-based code runs without sleeping.
///
/// Sleepers resume as soon as the clock is advanced to or past their deadline; a cancelled
/// sleeper throws `CancellationError` at once. Thread-safe.
final class ManualClock: Clock, Sendable {
    /// A point on a manual clock: the time elapsed since the clock was made.
    struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock's origin.
        var offset: Duration

        /// Creates an instant at `offset` from the origin.
        init(offset: Duration) {
            self.offset = offset
        }

        /// Returns the instant `duration` later.
        func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// Returns the time from this instant to `other`.
        func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Orders instants by offset.
        static func < (a: Instant, b: Instant) -> Bool {
            a.offset < b.offset
        }

        /// The offset in seconds, for messages.
        var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())
    /// The calendar time that the clock's origin stands for, for ``wallClock``.
    let epoch: Date

    /// Creates a clock at offset zero whose origin stands for `epoch` in calendar time.
    init(epoch: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.epoch = epoch
    }

    /// The current instant.
    var now: Instant { state.withLock { $0.now } }

    /// The smallest step the clock can take.
    var minimumResolution: Duration { .zero }

    /// The origin, offset zero.
    var zero: Instant { Instant(offset: .zero) }

    /// A wall clock that moves with this clock, starting at ``epoch``.
    var wallClock: WallClock {
        WallClock { [self] in self.epoch.addingTimeInterval(Self.seconds(self.now.offset)) }
    }

    /// How many tasks are sleeping on the clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline of any sleeper.
    var nextDeadline: Instant? { state.withLock { $0.sleepers.values.map(\.deadline).min() } }

    /// Suspends until the clock reaches `deadline` or the task is cancelled.
    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper.continuation }
                state.cancelled.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
        state.withLock { _ = $0.cancelled.remove(id) }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            return Self.takeDue(&state)
        }
        for continuation in due { continuation.resume() }
    }

    /// Moves the clock to `instant` (if later than now) and wakes the sleepers that are due.
    func advance(to instant: Instant) {
        let due = state.withLock { state in
            state.now = max(state.now, instant)
            return Self.takeDue(&state)
        }
        for continuation in due { continuation.resume() }
    }

    /// Waits, without advancing time, until at least `count` tasks sleep on the clock.
    func waitForSleepers(_ count: Int) async {
        while sleeperCount < count {
            await Task.yield()
        }
    }

    /// Waits, without advancing time, until some task sleeps until exactly `deadline`.
    func waitForSleeper(until deadline: Instant) async {
        while !state.withLock({ $0.sleepers.values.contains { $0.deadline == deadline } }) {
            await Task.yield()
        }
    }

    private static func takeDue(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        let now = state.now
        let dueIDs = state.sleepers.filter { $0.value.deadline <= now }.keys.sorted()
        return dueIDs.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
