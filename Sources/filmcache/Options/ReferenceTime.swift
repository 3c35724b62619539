import ArgumentParser
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
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return nil }
        guard let date = ISO8601DateFormatter().date(from: text) else {
            throw fail(
                "\(variable) must be an ISO 8601 instant such as 2026-11-21T12:00:00Z", status: ExitStatus.configuration
            )
        }
        FileHandle.standardError.write(Data("filmcache: \(variable) pins the time to \(text) (a testing aid)\n".utf8))
        return date
    }

    /// A clock for the library: the pinned instant every time, or the wall clock.
    static func clock() throws -> @Sendable () -> Date {
        guard let date = try pinned() else { return { Date() } }
        return { date }
    }

    /// The current time, pinned or not.
    static func now() throws -> Date {
        try pinned() ?? Date()
    }
}
