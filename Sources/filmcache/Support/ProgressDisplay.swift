import FilmCacheKit
import Logging

/// Shows a warm's progress: a live line on a terminal, or a `progress` log line elsewhere.
struct ProgressDisplay: ProgressSink {
    /// Where the progress goes.
    enum Destination: Sendable {
        /// Redrawn in place at the bottom of the terminal.
        case terminal(TerminalStatusLine)
        /// Logged at notice level (the default level shows it).
        case log(Logger)
    }

    /// How often the job reports.
    let interval: Duration
    /// Where reports go.
    let destination: Destination

    /// Draws or logs one snapshot.
    func report(_ progress: WarmProgress) {
        switch destination {
        case .terminal(let line): line.show(ProgressLine.text(progress))
        case .log(let logger): logger.notice("progress", metadata: ProgressLine.metadata(progress))
        }
    }
}
