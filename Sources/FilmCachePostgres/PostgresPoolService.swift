import FilmCacheKit
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// The pool of connections of a backend a command opens, run as a service in the command's
/// `ServiceGroup` rather than in a task of its own.
///
/// The command puts the service in its group first (so it is shut down last, after the work that
/// uses the database) and opens the backend with it (``PostgresBackend/open(_:password:time:logger:readOnly:pool:)``),
/// possibly later than the group starts: ``run()`` waits for the pool to be handed over, runs it,
/// and ends it at the group's graceful shutdown. A command that never opens a PostgreSQL backend
/// leaves it waiting until then. As ``PostgresBackend/close()`` did when the pool was its own, the
/// end waits at most ``PostgresBackend/closingLimit``, and no longer than a probe of the server
/// takes to find it gone: a connection to a server that stopped answering never closes.
public final class PostgresPoolService: Service, Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<(PostgresClient, Connector)?, Never>)
        case handed(PostgresClient, Connector)
        case done
    }

    private let state = Mutex(State.empty)
    /// What its waits, and those of the backend opened with it, are timed on.
    public let time: TimeSource

    /// A service with no pool yet, its waits on `time`'s clock.
    public init(time: TimeSource) {
        self.time = time
    }

    /// Hands over the pool of a backend just opened; its `run()` starts in ``run()``.
    func adopt(_ client: PostgresClient, connector: Connector) {
        let waiter = state.withLock { state -> CheckedContinuation<(PostgresClient, Connector)?, Never>? in
            switch state {
            case .empty:
                state = .handed(client, connector)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .handed, .done:
                return nil
            }
        }
        waiter?.resume(returning: (client, connector))
    }

    /// Runs the pool, once handed over, until the graceful shutdown.
    public func run() async throws {
        guard let (client, connector) = await cancelWhenGracefulShutdown({ await self.handedOver() }) else { return }
        try? await race {
            await client.run()
        } against: {
            try await gracefulShutdown()
            try await connector.probe(for: PostgresBackend.closingLimit, every: Self.probeInterval)
        }
    }

    /// How often a pool that is slow to end looks whether the server is still there.
    static let probeInterval = Duration.seconds(5)

    /// The pool once handed over; `nil` when the task is cancelled first.
    private func handedOver() async -> (PostgresClient, Connector)? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> (PostgresClient, Connector)?? in
                    // A cancellation whose handler ran before the wait was registered.
                    if Task.isCancelled { return .some(nil) }
                    switch state {
                    case .empty:
                        state = .waiting(continuation)
                        return .none
                    case .handed(let client, let connector):
                        state = .done
                        return .some((client, connector))
                    case .waiting, .done:
                        return .some(nil)
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<(PostgresClient, Connector)?, Never>? in
                guard case .waiting(let continuation) = state else { return nil }
                state = .done
                return continuation
            }
            waiter?.resume(returning: nil)
        }
    }
}
