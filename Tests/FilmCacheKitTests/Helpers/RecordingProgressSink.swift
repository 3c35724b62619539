import Synchronization

@testable import FilmCacheKit

/// A progress sink that keeps every snapshot it is handed.
final class RecordingProgressSink: ProgressSink {
    /// How often the job is asked to report.
    let interval: Duration
    private let log = Mutex<[WarmProgress]>([])

    /// A sink asking for reports every `interval`.
    init(interval: Duration) {
        self.interval = interval
    }

    /// Keeps `progress`.
    func report(_ progress: WarmProgress) {
        log.withLock { $0.append(progress) }
    }

    /// Snapshots in the order they came.
    var reports: [WarmProgress] { log.withLock { $0 } }
}
