import ArgumentParser
import FilmCacheKit
import Foundation

/// The current time for a command: the wall clock, or the instant pinned by `FILMCACHE_NOW`.
///
/// `FILMCACHE_NOW` (ISO 8601 in UTC, `2026-11-21T12:00:00Z`) is a testing aid and nothing more:
/// the end-to-end golden files run warms and reports at pinned instants so that what they print
/// (ages, quota days, run times) is the same on every run. A warm under it stamps every fetch,
/// ledger day and run with that instant, so it is never set in production; when it is set, every
/// command says so on standard error.
enum ReferenceTime {
    /// The environment variable that pins the time.
    static let variable = "FILMCACHE_NOW"

    /// The pinned instant, or `nil` for the wall clock; exits 78 when the variable is malformed.
    static func pinned() throws -> Date? {
        guard let text = ProcessEnvironment.value(variable), !text.isEmpty else { return nil }
        guard let date = instant(text) else {
            throw fail(
                "\(variable) must be an ISO 8601 instant such as 2026-11-21T12:00:00Z", status: ExitStatus.configuration
            )
        }
        StandardError.write("filmcache: \(variable) pins the time to \(text) (a testing aid)")
        return date
    }

    /// The environment variable that starts a running clock at an instant.
    static let startVariable = "FILMCACHE_CLOCK_START"

    /// A clock for the library: the pinned instant every time, a clock started at
    /// `FILMCACHE_CLOCK_START` and running at the wall clock's pace, or the wall clock.
    ///
    /// `FILMCACHE_CLOCK_START` is a testing aid like `FILMCACHE_NOW`: it lets a test start a warm
    /// a few seconds before a quota day's midnight and watch it cross.
    static func clock() throws -> @Sendable () -> Date {
        if let date = try pinned() { return { date } }
        guard let text = ProcessEnvironment.value(startVariable), !text.isEmpty else { return { Date() } }
        guard let start = instant(text) else {
            throw fail(
                "\(startVariable) must be an ISO 8601 instant such as 2026-11-21T23:59:58Z",
                status: ExitStatus.configuration)
        }
        StandardError.write("filmcache: \(startVariable) starts the clock at \(text) (a testing aid)")
        let offset = start.timeIntervalSince(Date())
        return { Date().addingTimeInterval(offset) }
    }

    /// The command's time source, made once and handed down: the continuous clock for durations, and
    /// ``clock()``'s wall clock for instants.
    static func source() throws -> TimeSource {
        TimeSource(clock: ContinuousClock(), wall: WallClock(now: try clock()))
    }

    /// An ISO 8601 instant, `2026-11-21T12:00:00Z` or with an offset (`+01:00`), fractions of a
    /// second allowed; or a date alone, `2026-11-21`, standing for its midnight UTC.
    static func instant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        if let date = formatter.date(from: text) { return date }
        guard text.utf8.count == 10, CalendarDate(iso: text) != nil else { return nil }
        formatter.formatOptions = [.withFullDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.date(from: text)
    }

    /// The current time, pinned, started at an instant, or the wall clock's.
    static func now() throws -> Date {
        try clock()()
    }
}
