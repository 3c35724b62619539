import Dispatch
import FilmCacheKit
import Foundation
import Logging

/// Turns SIGINT, SIGTERM and SIGHUP into a clean stop of a warm; a second signal exits at once.
///
/// SIGHUP is a dropped SSH session or a closed terminal: the run stops as for SIGTERM and keeps
/// what it was paid for. SIGPIPE is ignored while the run lasts: output to a reader that went
/// away (`warm … | head -1`) is dropped, and the run goes on and commits.
///
/// The first signal requests ``stop``: no new request is sent, requests in flight finish and
/// are stored, the summary is printed and the run exits 75. A second signal exits at once
/// with 128 + the signal number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP): every committed batch is
/// kept (each is one transaction in a WAL database) and the ledger may over-count by the
/// calls reserved but not sent, never under-count.
final class StopSignals {
    /// The token the signals request.
    let stop = WarmStop()
    private let sources: [any DispatchSourceSignal]
    private static let handled: [(number: Int32, name: String)] = [
        (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"),
    ]

    /// Installs the handling; the default disposition is ignored until ``cancel()``.
    init(logger: Logger) {
        let stop = stop
        signal(SIGPIPE, SIG_IGN)
        sources = Self.handled.map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if stop.request(.interrupted) {
                    logger.notice(
                        "\(name) received: stopping; requests in flight finish and are stored (again to exit at once)")
                } else {
                    TerminalStatusLine.standardError.clear()
                    StandardError.write("filmcache: \(name) again: exiting at once; committed results are kept")
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
