import FilmCacheKit
import Logging
import ServiceLifecycle

/// Fills the serve engine's memory with the films apps asked for most, once at start, beside the
/// server (which answers from the first moment, from the cache where memory does not hold a film
/// yet); the graceful shutdown cuts it short.
struct MemoryFillService: Service {
    let engine: ServeEngine
    let logger: Logger
    /// The most films read.
    static let limit = 20_000

    func run() async throws {
        let held = await cancelWhenGracefulShutdown { [engine] in await engine.holdMostRequested(limit: Self.limit) }
        logger.info("films held in memory at start", metadata: ["films": "\(held)"])
    }
}
