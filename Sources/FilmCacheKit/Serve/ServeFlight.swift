import Synchronization

/// One fetch that several requests wait for; each waiter may give up at its own deadline. A fetch
/// comes to a `Resolution` (OMDb's ``ServeResolution``, TMDb's ``TMDbServeResolution``).
final class ServeFlight<Resolution: Sendable>: Sendable {
    private struct State {
        var resolution: Resolution?
        var waiters: [Int: CheckedContinuation<Resolution?, Never>] = [:]
        /// Waiters whose deadline passed before they were registered.
        var expired: Set<Int> = []
        var next = 0
    }

    private let state = Mutex(State())

    /// Ends the flight: every waiter, and every later one, gets `resolution`.
    func finish(_ resolution: Resolution) {
        let waiters = state.withLock { state in
            state.resolution = resolution
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(returning: resolution) }
    }

    /// The flight's resolution, or `nil` when `deadline` passes on `clock` first.
    func wait(deadline: Duration, on clock: any Clock<Duration>) async -> Resolution? {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        // The timer must outlive the waiter's continuation, not be awaited by it: unstructured.
        let timer = Task { [self] in
            try? await clock.sleep(for: deadline)
            let waiter = state.withLock { state in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.expired.insert(id)
                    return nil as CheckedContinuation<Resolution?, Never>?
                }
                return waiter
            }
            waiter?.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Resolution?? in
                if let resolution = state.resolution { return .some(resolution) }
                if state.expired.remove(id) != nil { return .some(nil) }
                state.waiters[id] = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
