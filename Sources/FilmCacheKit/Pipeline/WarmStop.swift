import Synchronization

/// A request, from outside a running warm, to stop it cleanly.
///
/// The library installs no signal handlers: the executable turns SIGINT and SIGTERM into
/// ``request(_:)``, and ``WarmJob`` turns its own time limit into one. Once a stop is
/// requested no new ID is taken and no further call is sent; calls already in flight finish
/// and are stored, waits (rate limit, backoff, breaker cool-down) end at once, and unsent
/// quota reservations go back to the ledger. The first reason given wins.
public final class WarmStop: Sendable {
    private let state = Mutex(State())

    private struct State {
        var reason: StopReason?
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var cancelledWaiters: Set<Int> = []
        var children: [ObjectIdentifier: WarmStop] = [:]
    }

    /// A token nobody has asked to stop yet.
    public init() {}

    /// Asks the job to stop for `reason`; returns `false` when a stop had already been requested.
    @discardableResult
    public func request(_ reason: StopReason) -> Bool {
        let woken = state.withLock { s -> (waiters: [CheckedContinuation<Void, Never>], children: [WarmStop])? in
            guard s.reason == nil else { return nil }
            s.reason = reason
            defer {
                s.waiters = [:]
                s.children = [:]
            }
            return (Array(s.waiters.values), Array(s.children.values))
        }
        guard let woken else { return false }
        for waiter in woken.waiters { waiter.resume() }
        for child in woken.children { child.request(reason) }
        return true
    }

    /// A token that stops, for the same reason and at once, when this one does; it can also stop on its own.
    ///
    /// Detach it with ``detach(_:)`` when done, so this token does not keep it.
    func child() -> WarmStop {
        let child = WarmStop()
        let stopped = state.withLock { s -> StopReason? in
            if s.reason == nil { s.children[ObjectIdentifier(child)] = child }
            return s.reason
        }
        if let stopped { child.request(stopped) }
        return child
    }

    /// Forgets `child`: a later stop of this token no longer reaches it.
    func detach(_ child: WarmStop) {
        state.withLock { _ = $0.children.removeValue(forKey: ObjectIdentifier(child)) }
    }

    /// Why a stop was requested, or `nil` while none was.
    public var reason: StopReason? { state.withLock { $0.reason } }

    /// Whether a stop was requested.
    public var isRequested: Bool { reason != nil }

    /// Sleeps for `duration` on `clock`, then requests a stop for `reason`; returns whether this call stopped it.
    ///
    /// Returns `false` without requesting anything when the task is cancelled first.
    @discardableResult
    public func request(_ reason: StopReason, after duration: Duration, on clock: any Clock<Duration>) async -> Bool {
        do {
            try await clock.sleep(for: duration)
        } catch {
            return false
        }
        return Task.isCancelled ? false : request(reason)
    }

    /// Suspends until a stop is requested or the task is cancelled.
    public func wait() async {
        let id = state.withLock { s in
            defer { s.nextWaiter += 1 }
            return s.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.reason != nil || s.cancelledWaiters.remove(id) != nil { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                if let waiter = s.waiters.removeValue(forKey: id) { return waiter }
                s.cancelledWaiters.insert(id)
                return nil
            }
            waiter?.resume()
        }
        state.withLock { _ = $0.cancelledWaiters.remove(id) }
    }

    /// Runs `body` (a wait) unless a stop is requested first; returns `false` when the stop won.
    ///
    /// When a stop arrives while `body` runs, `body`'s task is cancelled and its error ignored.
    func unlessStopped(_ body: @escaping @Sendable () async throws -> Void) async throws -> Bool {
        if isRequested { return false }
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                await self.wait()
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
    }
}
