import Synchronization

/// Runs `work` and `watch` side by side and returns (or throws) what the first of them to end
/// gives; the other is cancelled and not waited for.
///
/// A structured task group would wait for both, and a statement sent to a server that has stopped
/// answering (frozen, or cut off without a reset) ignores cancellation until the connection ends,
/// which may be never. Here the caller is answered as soon as either side ends; the abandoned side
/// ends when it ends, and the process is free to report the database unavailable and exit.
///
/// A value a side gives after the race is decided (a connection made just too late) goes to
/// `leftover`, so that it can be closed rather than dropped.
func race<T: Sendable>(
    _ work: @escaping @Sendable () async throws -> T,
    against watch: @escaping @Sendable () async throws -> T,
    leftover: (@Sendable (T) async -> Void)? = nil
) async throws -> T {
    let outcome = RaceOutcome<T>(leftover: leftover)
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.start(continuation, work, watch)
        }
    } onCancel: {
        outcome.cancel()
    }
}

/// The shared state of one ``race(_:against:)``: the continuation, resumed once, and both tasks.
private final class RaceOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var tasks: [Task<Void, Never>] = []
        var cancelled = false
    }
    private let state = Mutex(State())
    private let leftover: (@Sendable (T) async -> Void)?

    init(leftover: (@Sendable (T) async -> Void)?) {
        self.leftover = leftover
    }

    func start(
        _ continuation: CheckedContinuation<T, any Error>, _ work: @escaping @Sendable () async throws -> T,
        _ watch: @escaping @Sendable () async throws -> T
    ) {
        state.withLock { $0.continuation = continuation }
        let tasks = [work, watch].map { side in
            Task {
                do {
                    let value = try await side()
                    if !self.finish(.success(value)), let leftover = self.leftover { await leftover(value) }
                } catch {
                    self.finish(.failure(error))
                }
            }
        }
        let (answered, cancelled) = state.withLock { state in
            state.tasks = tasks
            return (state.continuation == nil, state.cancelled)
        }
        if answered {
            tasks.forEach { $0.cancel() }
        } else if cancelled {
            cancel()
        }
    }

    /// Resumes the caller with the first side's result and cancels both sides; `false` when the
    /// race was already decided.
    @discardableResult
    private func finish(_ result: Result<T, any Error>) -> Bool {
        let (continuation, tasks) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.tasks)
        }
        guard let continuation else { return false }
        tasks.forEach { $0.cancel() }
        continuation.resume(with: result)
        return true
    }

    /// The caller was cancelled: both sides are, and the caller is answered with the cancellation.
    func cancel() {
        let waiting = state.withLock { state in
            state.cancelled = true
            return state.continuation != nil
        }
        if waiting { finish(.failure(CancellationError())) }
    }
}
