import Logging

/// Writes through another handler with the terminal's status line cleared for the moment.
struct StatusLineLogHandler: LogHandler {
    private var inner: any LogHandler
    private let line: TerminalStatusLine

    /// Wraps `inner`, keeping its lines clear of `line`.
    init(wrapping inner: any LogHandler, line: TerminalStatusLine = .standardError) {
        self.inner = inner
        self.line = line
    }

    /// The wrapped handler's metadata.
    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    /// The wrapped handler's metadata provider.
    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    /// The wrapped handler's level.
    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    /// One metadata value of the wrapped handler.
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    /// Logs `event` through the wrapped handler below the cleared status line.
    func log(event: LogEvent) {
        line.withLineCleared { inner.log(event: event) }
    }
}
