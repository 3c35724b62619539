import FilmCacheKit
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

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
///
/// The signals are trapped when it is made, before the command's group runs; it handles them
/// while ``run()`` runs, as the group's first service, shut down last: after the run has finished,
/// so a second signal during the finish still exits at once. The group's own graceful shutdown on
/// SIGINT and SIGTERM waits for the run, which this service's stop request ends.
struct StopSignals: Service {
    /// The token the signals request.
    let stop = WarmStop()
    private let interrupts: UnixSignalsSequence
    private let hangUps: UnixSignalsSequence
    private let logger: Logger

    /// Traps the signals (SIGHUP through a sequence of its own) and ignores SIGPIPE.
    init(logger: Logger) async {
        signal(SIGPIPE, SIG_IGN)
        interrupts = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        hangUps = await UnixSignalsSequence(trapping: .sighup)
        self.logger = logger
    }

    /// Handles the signals until the group's graceful shutdown reaches this service.
    func run() async throws {
        await withDiscardingTaskGroup { group in
            for signals in [interrupts, hangUps] {
                group.addTask { [self] in
                    for await signal in signals.cancelOnGracefulShutdown() { handle(signal) }
                }
            }
        }
    }

    /// The first stop signal stops the run; another exits at once.
    private func handle(_ signal: UnixSignal) {
        let name = signal.description
        if stop.request(.interrupted) {
            logger.notice(
                "\(name) received: stopping; requests in flight finish and are stored (again to exit at once)")
        } else {
            TerminalStatusLine.standardError.clear()
            StandardError.write("filmcache: \(name) again: exiting at once; committed results are kept")
            _exit(128 + signal.rawValue)
        }
    }
}
