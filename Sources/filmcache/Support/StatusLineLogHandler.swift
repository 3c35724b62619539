import FilmCacheKit
import Logging

/// Writes through another handler with the terminal's status line cleared for the moment.
struct StatusLineLogHandler: ForwardingLogHandler {
    var inner: any LogHandler
    private let line: TerminalStatusLine

    /// Wraps `inner`, keeping its lines clear of `line`.
    init(wrapping inner: any LogHandler, line: TerminalStatusLine = .standardError) {
        self.inner = inner
        self.line = line
    }

    /// Logs `event` through the wrapped handler below the cleared status line.
    func log(event: LogEvent) {
        line.withLineCleared { inner.log(event: event) }
    }
}
