import Synchronization

/// A lock held across suspension points: one holder at a time, the others waiting in turn.
///
/// For sections that call the store (which suspends) and must not interleave, where a `Mutex`
/// cannot be held across an `await` and an actor would let a second caller in at every one.
package final class AsyncLock: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A lock no one holds.
    package init() {}

    /// Waits until the lock is free, then holds it.
    package func lock() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { s -> Bool in
                if s.held {
                    s.waiters.append(continuation)
                    return false
                }
                s.held = true
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Lets the next waiter in, or frees the lock.
    package func unlock() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty {
                s.held = false
                return nil
            }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }

    /// Runs `body` holding the lock.
    package func withLock<T: Sendable, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }
}
