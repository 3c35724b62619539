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
        let logger = Logger(label: "serve-tests") { _ in SwiftLogNoOpLogHandler() }
        let path = directory.appendingPathComponent("films.sqlite").path
        let store = try await SQLiteBackend.open(path: path, logger: logger)
        var configuration = WarmConfiguration(databasePath: path, worklists: [], apiKey: APIKey("omdb-key")!)
        configuration.baseURL = "http://omdb.invalid/"
        configuration.rate = 1_000
        configuration.burst = 1_000
        configuration.backoff = Backoff(
            base: .milliseconds(1), cap: .milliseconds(1), maxAttempts: 1, maxWait: .milliseconds(1))
        let wall = SettableWall(Date(timeIntervalSince1970: 1_795_000_000))
        let time = TimeSource(clock: ContinuousClock(), wall: wall.wall)
        // No request gives up waiting for OMDb: on a loaded machine the deadline must not decide an answer.
        var settings = ServeSettings()
        settings.requestDeadline = .seconds(3_600)
        let engine = ServeEngine(
            store: store, tokens: try ServeTokens(text: token + "\n", file: "tokens"), configuration: configuration,
            settings: settings, transport: upstream, time: time, logger: logger)
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

    /// Closes the cache and removes its directory.
    func close() async {
        await store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
