import Synchronization

/// The IDs and titles still to fetch, shared by the fetch workers.
final class WorkQueue: Sendable {
    private let state: Mutex<State>

    private struct State {
        var targets: [FetchTarget]
        var failedBefore: [String: Int]
        /// IDs a title resolved to during the run: the film came with the answer, so its ID is not asked again.
        var arrived: Set<String> = []
        var next = 0
        var returned = 0
        var closed = false
    }

    private let stopToken: WarmStop?

    /// A queue over `targets`; once `stop` is requested it hands out nothing more.
    init(_ targets: [FetchTarget], failedBefore: [String: Int] = [:], stop: WarmStop? = nil) {
        state = Mutex(State(targets: targets, failedBefore: failedBefore))
        stopToken = stop
    }

    /// Runs in a row that failed for `id` before this one.
    func failedBefore(_ id: String) -> Int { state.withLock { $0.failedBefore[id] ?? 0 } }

    /// Records that the film `id` arrived (a title resolved to it): the queue skips that ID from now on.
    func arrived(_ id: String) {
        _ = state.withLock { $0.arrived.insert(id) }
    }

    /// The next ID or title, or `nil` when all are taken, the queue was closed, or a stop was requested.
    ///
    /// An ID whose film already arrived in this run is passed over: it counts as done, not remaining.
    func next() -> FetchTarget? {
        if stopToken?.isRequested == true { return nil }
        return state.withLock { s in
            while !s.closed, s.next < s.targets.count {
                let target = s.targets[s.next]
                s.next += 1
                if let id = target.imdbID, s.arrived.contains(id) { continue }
                return target
            }
            return nil
        }
    }

    /// Hands out nothing more; the target the caller holds counts as not done.
    func stop() {
        state.withLock {
            $0.closed = true
            $0.returned += 1
        }
    }

    /// Targets never taken plus those held when the queue stopped.
    var remaining: Int { state.withLock { $0.targets.count - $0.next + $0.returned } }
}
