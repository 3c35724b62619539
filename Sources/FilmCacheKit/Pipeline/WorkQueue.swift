import Synchronization

/// The IDs still to fetch, shared by the fetch workers.
final class WorkQueue: Sendable {
    private let state: Mutex<State>

    private struct State {
        var ids: [String]
        var failedBefore: [String: Int]
        var next = 0
        var returned = 0
        var closed = false
    }

    private let stopToken: WarmStop?

    /// A queue over `ids`; once `stop` is requested it hands out nothing more.
    init(_ ids: [String], failedBefore: [String: Int] = [:], stop: WarmStop? = nil) {
        state = Mutex(State(ids: ids, failedBefore: failedBefore))
        stopToken = stop
    }

    /// Runs in a row that failed for `id` before this one.
    func failedBefore(_ id: String) -> Int { state.withLock { $0.failedBefore[id] ?? 0 } }

    /// The next ID, or `nil` when all are taken, the queue was closed, or a stop was requested.
    func next() -> String? {
        if stopToken?.isRequested == true { return nil }
        return state.withLock { s in
            guard !s.closed, s.next < s.ids.count else { return nil }
            defer { s.next += 1 }
            return s.ids[s.next]
        }
    }

    /// Hands out nothing more; the ID the caller holds counts as not done.
    func stop() {
        state.withLock {
            $0.closed = true
            $0.returned += 1
        }
    }

    /// IDs never taken plus those held when the queue stopped.
    var remaining: Int { state.withLock { $0.ids.count - $0.next + $0.returned } }
}
