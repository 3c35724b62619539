import ArgumentParser
import FilmCacheKit

/// How log lines on standard error look.
enum LogFormat: String, CaseIterable, ExpressibleByArgument {
    /// Time, level and message, then fields, for people at a terminal.
    case human
    /// `key=value` lines, for log collectors and grep.
    case logfmt
    /// One JSON object per line.
    case json

    /// The library's line format of the same name.
    var lineFormat: LineLogHandler.Format {
        switch self {
        case .human: .human
        case .logfmt: .logfmt
        case .json: .json
        }
    }
}
