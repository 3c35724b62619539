import FilmCacheKit
import FilmCacheSQLite
import FilmCacheServe
import Foundation
import Hummingbird
import Logging

/// `filmcache serve`'s HTTP application over a real SQLite file in a fresh directory, asking a
/// scripted upstream, its wall clock set by hand.
struct ServeFixture {
    let directory: URL
    let store: SQLiteBackend
    let engine: ServeEngine
    let metrics: ServeMetrics
    let wall: SettableWall
    let upstream: ScriptedUpstream
    let app: any ApplicationProtocol

    /// The client token the fixture accepts.
    static let token = "app-token"

    /// Opens the cache and builds the application.
    static func make(
        upstream: ScriptedUpstream, headDeadline: Duration = .seconds(3_600), idleTimeout: Duration = .seconds(3_600)
    ) async throws -> ServeFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "filmcache-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logger = Self.logger
        let path = directory.appendingPathComponent("films.sqlite").path
        let store = try await SQLiteBackend.open(path: path, logger: logger)
        let wall = SettableWall(Date(timeIntervalSince1970: 1_795_000_000))
        let time = TimeSource(clock: ContinuousClock(), wall: wall.wall)
        let configuration = Self.configuration(path: path)
        let engine = try Self.engine(store: store, path: path, upstream: upstream, wall: wall)
        let metrics = ServeMetrics()
        let pages = ServePages(
            store: store, configuration: configuration, metrics: metrics, now: wall.wall.now, logger: logger)
        // Nor does the connection's head deadline (unless a test sets it) or idle timeout: a client stalled
        // for seconds between two requests on a loaded machine would find its connection closed.
        var options = ServeListenOptions(host: "127.0.0.1", port: 0)
        options.headDeadline = headDeadline
        options.idleTimeout = idleTimeout
        let app = ServeHTTP.application(
            engine: engine, metrics: metrics, pages: pages, options: options,
            time: time, logger: logger)
        return ServeFixture(
            directory: directory, store: store, engine: engine, metrics: metrics, wall: wall, upstream: upstream,
            app: app)
    }

    /// Runs `body` with a fixture asking `upstream`, then closes it, whether `body` threw or not.
    static func with(
        _ upstream: ScriptedUpstream, headDeadline: Duration = .seconds(3_600), idleTimeout: Duration = .seconds(3_600),
        _ body: (ServeFixture) async throws -> Void
    ) async throws {
        let fixture = try await make(upstream: upstream, headDeadline: headDeadline, idleTimeout: idleTimeout)
        do {
            try await body(fixture)
        } catch {
            await fixture.close()
            throw error
        }
        await fixture.close()
    }

    static let logger = Logger(label: "serve-tests") { _ in SwiftLogNoOpLogHandler() }

    /// OMDb's side of the fixture's engines: a key, no rate limit to speak of, one try.
    static func configuration(path: String) -> WarmConfiguration {
        var configuration = WarmConfiguration(databasePath: path, worklists: [], apiKey: APIKey("omdb-key")!)
        configuration.baseURL = "http://omdb.invalid/"
        configuration.rate = 1_000
        configuration.burst = 1_000
        configuration.backoff = Backoff(
            base: .milliseconds(1), cap: .milliseconds(1), maxAttempts: 1, maxWait: .milliseconds(1))
        return configuration
    }

    /// An engine over `store` (the file at `path`) asking `upstream`, on `wall`'s clock, its memory
    /// `memoryBytes` large.
    static func engine(
        store: SQLiteBackend, path: String, upstream: ScriptedUpstream, wall: SettableWall,
        memoryBytes: Int = 64 << 20
    ) throws -> ServeEngine {
        // No request gives up waiting for OMDb: on a loaded machine the deadline must not decide an answer.
        var settings = ServeSettings()
        settings.requestDeadline = .seconds(3_600)
        settings.memoryBytes = memoryBytes
        return ServeEngine(
            store: store, tokens: try ServeTokens(text: token + "\n", file: "tokens"),
            configuration: configuration(path: path), settings: settings, transport: upstream,
            time: TimeSource(clock: ContinuousClock(), wall: wall.wall), logger: logger)
    }

    /// A second engine over the fixture's cache, as a serve process started again has: nothing in memory.
    func restartedEngine(memoryBytes: Int = 64 << 20) throws -> ServeEngine {
        try Self.engine(
            store: store, path: directory.appendingPathComponent("films.sqlite").path, upstream: upstream, wall: wall,
            memoryBytes: memoryBytes)
    }

    /// Closes the cache and removes its directory.
    func close() async {
        await store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
