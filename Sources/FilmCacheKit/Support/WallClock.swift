import Foundation

/// The source of calendar time for decisions that depend on the date, not on elapsed time.
///
/// Elapsed time (rate limits, backoff, cool-downs) goes through a Swift `Clock`; calendar time
/// (quota days, `Retry-After` HTTP dates, `lastFetched`) comes from here so tests can pin it.
public struct WallClock: Sendable {
    /// Returns the current instant.
    public let now: @Sendable () -> Date

    /// Creates a wall clock that reads the time from `now`.
    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// The system's real-time clock.
    public static let system = WallClock { Date() }

    /// A clock stopped at `date`.
    public static func fixed(_ date: Date) -> WallClock {
        WallClock { date }
    }
}
