import FilmCacheKit
import ServiceLifecycle

/// The serve engine's ``DemandFlusher`` as a service: it writes request counts on its timer until
/// the graceful shutdown reaches it — after the server, which is shut down first and lets its
/// requests finish — then writes the last counts.
struct DemandFlushService: Service {
    let flusher: DemandFlusher

    func run() async throws {
        await cancelWhenGracefulShutdown { [flusher] in await flusher.run() }
        // Not in a task the group may have cancelled: the last writes must not be cut short.
        await Task { [flusher] in await flusher.flush() }.value
    }
}
