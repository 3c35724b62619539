import ArgumentParser

/// How log lines on standard error look.
enum LogFormat: String, CaseIterable, ExpressibleByArgument {
    /// swift-log's stream format, for people at a terminal.
    case human
    /// `key=value` lines, for log collectors and grep.
    case logfmt
    /// One JSON object per line.
    case json
}
