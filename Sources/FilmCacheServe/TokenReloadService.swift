import FilmCacheKit
import Logging
import ServiceLifecycle
import UnixSignals

/// Reads the client tokens file again on SIGHUP, until the graceful shutdown: a file that is now
/// bad leaves the old tokens in place.
public struct TokenReloadService: Service {
    private let engine: ServeEngine
    private let path: String
    private let signals: UnixSignalsSequence
    private let logger: Logger

    /// Traps SIGHUP at once (before the group runs), for `engine`'s tokens from `path`.
    public init(engine: ServeEngine, path: String, logger: Logger) async {
        self.engine = engine
        self.path = path
        self.logger = logger
        signals = await UnixSignalsSequence(trapping: .sighup)
    }

    /// Reads the file again on each SIGHUP until the graceful shutdown.
    public func run() async throws {
        for await _ in signals.cancelOnGracefulShutdown() {
            do {
                let fresh = try ServeTokens.load(path: path)
                engine.replaceTokens(fresh)
                logger.notice("tokens file read again", metadata: ["tokens": "\(fresh.count)"])
            } catch {
                logger.error("tokens file not read again; the old tokens stay", metadata: ["error": "\(error)"])
            }
        }
    }
}
