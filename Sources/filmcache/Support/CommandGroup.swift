import Logging
import ServiceLifecycle
import Synchronization

/// Runs a command's work as the last service of a `ServiceGroup`, after the services it stands on
/// (signals, the database pool): the work is shut down first and they after it, in reverse order.
///
/// SIGTERM and SIGINT start the group's graceful shutdown; the work ends when it has finished what
/// it had begun (its stop is requested by ``StopSignals``), then the group ends the rest. When the
/// work returns or throws, the group is shut down the same way and its result is the command's.
enum CommandGroup {
    /// Runs `work` beside `services` and returns what it returned, or throws what it threw.
    static func run<T: Sendable>(
        beside services: [any Service], logger: Logger, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let service = WorkService(work)
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) } + [
                    .init(
                        service: service, successTerminationBehavior: .gracefullyShutdownGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup)
                ],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            // The work's own error is the command's; the group's only when the work has none.
            if let result = service.result { return try result.get() }
            throw error
        }
        guard let result = service.result else { throw CancellationError() }
        return try result.get()
    }
}

/// A command's work as a service that runs once and keeps what it came to.
private final class WorkService<T: Sendable>: Service, Sendable {
    private let work: @Sendable () async throws -> T
    private let outcome = Mutex<Result<T, any Error>?>(nil)

    init(_ work: @escaping @Sendable () async throws -> T) {
        self.work = work
    }

    /// What the work returned or threw; `nil` before it ended.
    var result: Result<T, any Error>? { outcome.withLock { $0 } }

    func run() async throws {
        do {
            let value = try await work()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
            throw error
        }
    }
}
