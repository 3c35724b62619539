import Synchronization

/// One fetch that several requests wait for; each waiter may give up at its own deadline.
final class ServeFlight: Sendable {
    private struct State {
        var resolution: ServeResolution?
        var waiters: [Int: CheckedContinuation<ServeResolution?, Never>] = [:]
        /// Waiters whose deadline passed before they were registered.
        var expired: Set<Int> = []
        var next = 0
    }

    private let state = Mutex(State())

    /// Ends the flight: every waiter, and every later one, gets `resolution`.
    func finish(_ resolution: ServeResolution) {
        let waiters = state.withLock { state in
            state.resolution = resolution
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(returning: resolution) }
    }

    /// The flight's resolution, or `nil` when `deadline` passes on `clock` first.
    func wait(deadline: Duration, on clock: any Clock<Duration>) async -> ServeResolution? {
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
                    return nil as CheckedContinuation<ServeResolution?, Never>?
                }
                return waiter
            }
            waiter?.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> ServeResolution?? in
                if let resolution = state.resolution { return .some(resolution) }
                if state.expired.remove(id) != nil { return .some(nil) }
                state.waiters[id] = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
