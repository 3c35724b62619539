import FilmCacheServe
import FilmCacheTestSupport
import Foundation
import Hummingbird
import Logging
import Synchronization

@testable import FilmCacheKit

/// The seam's request, apart from HTTPTypes' type of the same name.
typealias UpstreamRequest = FilmCacheKit.HTTPRequest
/// The seam's response, apart from HTTPTypes' type of the same name.
typealias UpstreamResponse = FilmCacheKit.HTTPResponse

/// A TMDb stand-in behind the transport seam: answers each request from a script by its path and
/// records every request as sent (URL and headers); a call may be held until the test lets it go.
final class ScriptedTMDb: HTTPRequestTransport {
    typealias Script = @Sendable (_ path: String, _ attempt: Int) -> Result<UpstreamResponse, TransportFailure>

    private let script: Mutex<Script>
    private let log = Mutex<[UpstreamRequest]>([])
    private let hold: Latch?

    /// Answers from `script`; with `hold`, each call waits until it is opened.
    init(hold: Latch? = nil, _ script: @escaping Script) {
        self.script = Mutex(script)
        self.hold = hold
    }

    func send(_ request: UpstreamRequest) async throws(TransportFailure) -> UpstreamResponse {
        let path = Self.path(of: request.url)
        let attempt = log.withLock {
            $0.append(request)
            return $0.filter { Self.path(of: $0.url) == path }.count
        }
        await hold?.wait()
        return try script.withLock { $0 }(path, attempt).get()
    }

    func get(_ url: String) async throws(TransportFailure) -> UpstreamResponse {
        try await send(UpstreamRequest(url: url))
    }

    /// Replaces the script for the calls after this one.
    func answer(with script: @escaping Script) {
        self.script.withLock { $0 = script }
    }

    /// Requests sent, in order.
    var requests: [UpstreamRequest] { log.withLock { $0 } }

    /// The path of `url`: `/3/movie/550`.
    static func path(of url: String) -> String { URLComponents(string: url)?.path ?? "" }

    /// TMDb's 200 with `body`.
    static func ok(_ body: String) -> Result<UpstreamResponse, TransportFailure> {
        .success(UpstreamResponse(status: 200, body: Array(body.utf8), contentType: "application/json;charset=utf-8"))
    }

    /// TMDb's answer `status` with its error body `code` and `message`, and `Retry-After` when given.
    static func error(_ status: Int, code: Int, _ message: String, retryAfter: String? = nil)
        -> Result<UpstreamResponse, TransportFailure>
    {
        .success(
            UpstreamResponse(
                status: status,
                body: Array(#"{"success":false,"status_code":\#(code),"status_message":"\#(message)"}"#.utf8),
                retryAfter: retryAfter))
    }
}

/// `filmcache serve`'s HTTP application over the memory backend, TMDb scripted behind the
/// transport seam (OMDb too, refusing everything), its wall clock set by hand.
struct TMDbServeFixture {
    let store: MemoryBackend
    let wall: SettableWall
    let upstream: ScriptedTMDb
    let tmdb: TMDbServeEngine
    let metrics: ServeMetrics
    let app: any ApplicationProtocol

    /// The client token apps send.
    static let token = "app-token-tmdb"
    /// The cache's own TMDb token (a v4 read access token, sent as `Authorization: Bearer`).
    static let secret = "eyJhbGciOiJIUzI1NiJ9.c2VydmUtdG1kYi10b2tlbg.cache-own-tmdb-secret"
    /// Where the scripted TMDb is.
    static let base = "http://tmdb.invalid/3"

    /// The application asking `upstream` for TMDb (no TMDb token when `withToken` is false), each
    /// request waiting for TMDb at most `deadline`.
    static func make(upstream: ScriptedTMDb, withToken: Bool = true, deadline: Duration = .seconds(3_600))
        async throws -> TMDbServeFixture
    {
        let logger = Logger(label: "serve-tmdb-tests") { _ in SwiftLogNoOpLogHandler() }
        let wall = SettableWall(Date(timeIntervalSince1970: 1_795_000_000))
        let time = TimeSource(clock: ContinuousClock(), wall: wall.wall)
        let store = MemoryBackend(wall: wall.wall)
        var configuration = WarmConfiguration(databasePath: "memory", worklists: [], apiKey: APIKey("omdb-key")!)
        configuration.baseURL = "http://omdb.invalid/"
        var settings = ServeSettings()
        // By default no request gives up waiting for TMDb: on a loaded machine the deadline must
        // not decide an answer.
        settings.requestDeadline = deadline
        let omdb = ScriptedUpstream { _, _ in .failure(.other("OMDb is not asked here")) }
        let engine = ServeEngine(
            store: store, tokens: try ServeTokens(text: token + "\n", file: "tokens"), configuration: configuration,
            settings: settings, transport: omdb, time: time, logger: logger)
        var connection: TMDbServeEngine.Upstream?
        if withToken {
            var tmdbUpstream = TMDbServeEngine.Upstream(
                endpoint: try TMDbEndpoint(baseURL: base, token: TMDbToken(secret)!), transport: upstream, rate: 0,
                maxInFlight: 8, calls: store)
            tmdbUpstream.backoff = Backoff(
                base: .milliseconds(1), cap: .milliseconds(1), maxAttempts: 1, maxWait: .milliseconds(1))
            connection = tmdbUpstream
        }
        let tmdb = TMDbServeEngine(
            store: store, accepts: { [engine] in engine.accepts(token: $0) }, upstream: connection, settings: settings,
            time: time, logger: logger)
        let metrics = ServeMetrics()
        let pages = ServePages(
            store: store, configuration: configuration, metrics: metrics, now: wall.wall.now, logger: logger)
        let app = ServeHTTP.application(
            engine: engine, tmdb: tmdb, metrics: metrics, pages: pages,
            options: ServeListenOptions(host: "127.0.0.1", port: 0), time: time, logger: logger)
        return TMDbServeFixture(store: store, wall: wall, upstream: upstream, tmdb: tmdb, metrics: metrics, app: app)
    }
}

extension TMDbServeFixture {
    /// Waits, polling, at most `limit` until the cache holds an answer under `key`; whether it does.
    func waitForAnswer(_ key: String, within limit: Duration = .seconds(300)) async -> Bool {
        await eventually(within: limit) { (try? await store.answer(for: key)) != nil }
    }
}
