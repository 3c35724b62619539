import FilmCacheKit
import ServiceLifecycle

/// The serve engine's ``ExhaustionWatcher`` as a service: it hears other processes' "limit reached"
/// until the graceful shutdown reaches it (after the server and the last demand), then gives
/// unsent reservations back to the ledger.
struct ExhaustionWatchService: Service {
    let watcher: ExhaustionWatcher

    func run() async throws {
        await cancelWhenGracefulShutdown { [watcher] in await watcher.run() }
        // Not in a task the group may have cancelled: the ledger's release must not be cut short.
        await Task { [watcher] in await watcher.finish() }.value
    }
}
