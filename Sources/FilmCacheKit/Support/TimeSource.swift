import Foundation

/// Where a process's time comes from: a `Clock` for durations (waits, rates, timeouts, leases) and a
/// wall clock for instants (quota days, `fetched_at`, freshness, `Retry-After` dates).
///
/// The commands make one, `TimeSource.system`, and hand it down; nothing below them reads the time or
/// sleeps on its own, so every policy runs on a manual clock in tests (`Scripts/check-time.sh` holds
/// this in CI).
public struct TimeSource: Sendable {
    /// Elapsed time: every wait and every measured interval.
    public let clock: any Clock<Duration>
    /// Calendar time: every instant that is stored, compared with a stored one or shown.
    public let wall: WallClock

    /// The time on `clock` since this source was made: for measuring intervals without naming the
    /// clock's own instant type.
    public let elapsed: @Sendable () -> Duration

    /// A time source reading durations from `clock` and instants from `wall`.
    public init<C: Clock<Duration>>(clock: C, wall: WallClock) {
        self.clock = clock
        self.wall = wall
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
    }

    /// The system's clocks: `ContinuousClock` and the real-time clock.
    public static let system = TimeSource(clock: ContinuousClock(), wall: .system)

    /// The current instant.
    public var now: Date { wall.now() }

    /// Waits `duration` on the clock; throws `CancellationError` when the task is cancelled first.
    public func sleep(for duration: Duration) async throws {
        try await clock.sleep(for: duration)
    }
}
