import ArgumentParser
import FilmCacheKit

/// Checks settings given as flags against the library's one table of ranges (exit 64 with the range named).
enum SettingFlags {
    /// Throws for the first value out of its range, or pair out of order; `nil` values were not given.
    static func check(_ values: [JobKey: Double?]) throws {
        if let (_, message) = JobKey.problems(values.compactMapValues { $0 }, name: \.flag).first {
            throw ValidationError(message)
        }
    }
}
