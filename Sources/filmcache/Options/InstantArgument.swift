import ArgumentParser
import Foundation

/// An instant given on the command line: ISO 8601 with a zone, or a date alone (midnight UTC).
struct InstantArgument: ExpressibleByArgument {
    /// The instant.
    var date: Date

    /// Reads `2026-11-01T00:00:00Z`, `2026-11-01T01:00:00+01:00` or `2026-11-01`.
    init?(argument: String) {
        guard let date = ReferenceTime.instant(argument.trimmingCharacters(in: .whitespaces)) else { return nil }
        self.date = date
    }
}
