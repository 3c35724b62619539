import Dispatch
import FilmCacheKit
import Foundation
import Logging

/// Turns SIGINT and SIGTERM into a clean stop of a warm; a second signal exits at once.
///
/// The first signal requests ``stop``: no new request is sent, requests in flight finish and
/// are stored, the summary is printed and the run exits 75. A second signal exits at once
/// with 128 + the signal number (130 for SIGINT, 143 for SIGTERM): every committed batch is
/// kept (each is one transaction in a WAL database) and the ledger may over-count by the
/// calls reserved but not sent, never under-count.
final class StopSignals {
    /// The token the signals request.
    let stop = WarmStop()
    private let sources: [any DispatchSourceSignal]
    private static let handled: [(number: Int32, name: String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")]

    /// Installs the handling; the default disposition is ignored until ``cancel()``.
    init(logger: Logger) {
        let stop = stop
        sources = Self.handled.map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if stop.request(.interrupted) {
                    logger.notice(
                        "\(name) received: stopping; requests in flight finish and are stored (again to exit at once)")
                } else {
                    TerminalStatusLine.standardError.clear()
                    FileHandle.standardError.write(
                        Data("filmcache: \(name) again: exiting at once; committed results are kept\n".utf8))
                    _exit(128 + number)
                }
            }
            source.resume()
            return source
        }
    }

    /// Stops handling the signals and restores their default disposition.
    func cancel() {
        for source in sources { source.cancel() }
        for (number, _) in Self.handled { signal(number, SIG_DFL) }
    }
}
