import Synchronization

/// Per-run counters shared by the workers.
final class WarmTally: Sendable {
    private let state = Mutex(WarmCounts())

    func withLock<T: Sendable>(_ body: (inout WarmCounts) -> T) -> T { state.withLock { body(&$0) } }

    var counts: WarmCounts { state.withLock { $0 } }
}

/// The counters behind a run's summary and progress.
struct WarmCounts {
    var fetched = 0
    var notFound = 0
    var failed = 0
    var titlesResolved = 0
    var titlesNotFound = 0
    var warnings = 0
    var calls: [CallOutcome: Int] = [:]
    var stopReason: StopReason?
    var stopDetail: String?
    var answered = false
}
