import ArgumentParser
import FilmCacheKit

/// A duration flag value: plain seconds or with units, `90`, `90s`, `45m`, `2h`, `1h30m`.
struct DurationArgument: ExpressibleByArgument, Sendable {
    /// The parsed duration.
    var duration: Duration

    /// Wraps `duration`.
    init(_ duration: Duration) {
        self.duration = duration
    }

    /// Parses a flag's text; `nil` (a usage error) when it is no duration.
    init?(argument: String) {
        guard let duration = Duration(parsing: argument) else { return nil }
        self.duration = duration
    }

    /// The value shown as a default in help.
    var defaultValueDescription: String { DurationText.compact(duration) }
}
