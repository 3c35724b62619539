import Foundation
import Logging

/// What `filmcache serve` answers under `/3/`: TMDb's answers from the cache, asking TMDb (with the
/// cache's own token) for what it lacks, once however many ask at once; so an app changes only
/// its TMDb base URL.
///
/// Read-through like the OMDb side: a fresh stored answer is served (``ServeSettings/answerTTL``
/// for TMDb's 200 bodies, ``ServeSettings/negativeAnswerTTL`` for its 404s), a miss is fetched
/// in one flight (in this process and across the serve processes on the database), stored byte
/// for byte and answered; when TMDb fails, times out or asks to wait, an expired answer is
/// served with the stale marker OMDb answers get. Clients authenticate with a client token, as
/// `api_key` or `Authorization: Bearer`; that token is neither stored nor sent on, and the
/// cache's own TMDb token is never in an answer.
///
/// Free of HTTP: the server hands it a request's path, query items and `Authorization` header.
public final class TMDbServeEngine: Sendable {
    private let store: any ServeStore
    private let accepts: @Sendable (String) -> Bool
    private let upstream: TMDbServeUpstream?
    private let settings: ServeSettings
    private let time: TimeSource
    private let logger: Logger
    private let flights: ServeFlights<TMDbServeResolution>
    private let memo: AnswerMemo

    /// How the cache reaches TMDb: where, with which token, at what pace; its calls counted in `calls`.
    public struct Upstream: Sendable {
        public var endpoint: TMDbEndpoint
        public var transport: any HTTPRequestTransport
        /// Calls a second (0: no limit).
        public var rate: Double
        /// Calls at once.
        public var maxInFlight: Int
        /// Where each call is counted by UTC day (as `serve`), when the cache keeps TMDb's calls.
        public var calls: (any TMDbStore)?
        package var backoff = Backoff(base: .milliseconds(250), cap: .seconds(2), maxAttempts: 2)
        package var breaker = CircuitBreaker<ContinuousClock>(pauseAfter: 5, stopAfter: .max, coolDown: .seconds(30))

        /// TMDb at `endpoint` through `transport`.
        public init(
            endpoint: TMDbEndpoint, transport: any HTTPRequestTransport, rate: Double = Setting.tmdbRate.default,
            maxInFlight: Int = Setting.tmdbMaxInFlight.default, calls: (any TMDbStore)?
        ) {
            self.endpoint = endpoint
            self.transport = transport
            self.rate = rate
            self.maxInFlight = maxInFlight
            self.calls = calls
        }
    }

    /// An endpoint over `store` accepting the client tokens `accepts` takes, asking TMDb as
    /// `upstream` says (`nil`: no TMDb token, the cache's answers only), every wait and instant from `time`.
    public init(
        store: any ServeStore, accepts: @escaping @Sendable (String) -> Bool, upstream: Upstream?,
        settings: ServeSettings = ServeSettings(), time: TimeSource, logger: Logger
    ) {
        self.store = store
        self.accepts = accepts
        self.settings = settings
        self.time = time
        self.logger = logger
        self.upstream = upstream.map { upstream in
            TMDbServeUpstream(
                endpoint: upstream.endpoint, transport: upstream.transport, rate: upstream.rate,
                maxInFlight: upstream.maxInFlight, backoff: upstream.backoff, breaker: upstream.breaker,
                calls: upstream.calls, time: time, logger: logger)
        }
        flights = ServeFlights(store: store, settings: settings, time: time, logger: logger)
        // Held apart from the OMDb side's memo, a quarter of its size: TMDb's bodies are the larger.
        memo = AnswerMemo(capacity: settings.memoryBytes / 4)
    }

    /// Whether the cache has a TMDb token to ask TMDb with.
    public var asksTMDb: Bool { upstream != nil }

    /// TMDb calls sent so far.
    public var upstreamCalls: Int { upstream?.sent ?? 0 }

    /// The answer to one request: its `path` (`/3/movie/550`), its query items (decoded) and its
    /// `Authorization` header, if any.
    public func respond(path: String, items: [(name: String, value: String)], authorization: String?) async
        -> ServeResponse
    {
        guard let token = Self.clientToken(items: items, authorization: authorization), accepts(token) else {
            return Self.response(401, TMDbServeAnswer.invalidKey, outcome: .refused)
        }
        guard let request = TMDbServeRequest(path: path, items: items) else {
            return Self.response(404, TMDbServeAnswer.notFound, outcome: .refused)
        }
        let cached: (fresh: (status: Int, body: [UInt8])?, stale: CachedAnswer?)
        do {
            cached = try await cachedAnswer(request.cacheKey, at: time.now)
        } catch {
            logger.error("the cache could not be read", metadata: ["error": "\(error)"])
            return Self.response(503, TMDbServeAnswer.unavailable, outcome: .error, retryAfter: 5)
        }
        if let fresh = cached.fresh { return Self.response(fresh.status, fresh.body, outcome: .hit) }
        guard let upstream else {
            return stale(cached.stale) ?? Self.response(503, TMDbServeAnswer.noToken, outcome: .error)
        }
        if let until = upstream.pausedUntil(at: time.now) {
            return respond(.limited(until: until), stale: cached.stale)
        }
        let resolution = await flights.fly("tmdb:" + request.cacheKey) { [self] in
            await fetch(request, from: upstream)
        }
        return respond(resolution, stale: cached.stale)
    }

    /// The client's token: `Authorization: Bearer …` when sent, else the last `api_key` item.
    static func clientToken(items: [(name: String, value: String)], authorization: String?) -> String? {
        if let authorization {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
            let token = parts[1].trimmingCharacters(in: .whitespaces)
            return token.isEmpty ? nil : token
        }
        guard let token = items.last(where: { $0.name.lowercased() == TMDbServeRequest.tokenName })?.value,
            !token.isEmpty
        else { return nil }
        return token
    }

    /// The stored answer under `key` while fresh at `at` (with its status), else the expired one, if any.
    private func cachedAnswer(_ key: String, at: Date) async throws(StoreError) -> (
        fresh: (status: Int, body: [UInt8])?, stale: CachedAnswer?
    ) {
        if let body = memo.fresh("200 " + key, at: at) { return ((200, body), nil) }
        if let body = memo.fresh("404 " + key, at: at) { return ((404, body), nil) }
        guard let cached = try await store.answer(for: key) else { return (nil, nil) }
        let until = freshUntil(cached, at: at)
        guard at >= until else {
            remember(cached, until: until)
            return ((cached.found ? 200 : 404, cached.body), nil)
        }
        return (nil, cached)
    }

    private func fetch(_ request: TMDbServeRequest, from upstream: TMDbServeUpstream) async -> TMDbServeResolution {
        // A request that read the cache just before another flight for this key (here or in
        // another process) stored its answer must not ask again.
        if let fresh = try? await cachedAnswer(request.cacheKey, at: time.now).fresh {
            return .answer(status: fresh.status, body: fresh.body)
        }
        let outcome = await upstream.fetch(request)
        let at = time.now
        switch outcome {
        case .found(let body):
            await store(CachedAnswer(query: request.cacheKey, body: body, found: true, answeredAt: at))
            return .answer(status: 200, body: body)
        case .notFound(let body):
            await store(CachedAnswer(query: request.cacheKey, body: body, found: false, answeredAt: at))
            return .answer(status: 404, body: body)
        case .limited(let until):
            return .limited(until: until)
        case .failed(let why):
            logger.warning("TMDb did not answer usably", metadata: ["path": "\(request.path)", "why": "\(why)"])
            return .down(retryAfter: upstream.downRetryAfter)
        case .refused:
            return .refused
        }
    }

    /// The response to `resolution`, or the expired answer when TMDb could not answer.
    private func respond(_ resolution: TMDbServeResolution?, stale: CachedAnswer?) -> ServeResponse {
        let at = time.now
        switch resolution {
        case .answer(let status, let body)?:
            return Self.response(status, body, outcome: .miss)
        case .limited(let until)?:
            return self.stale(stale)
                ?? Self.response(
                    429, TMDbServeAnswer.rateLimited, outcome: .error,
                    retryAfter: Int(until.timeIntervalSince(at).rounded(.up)))
        case .down(let retryAfter)?:
            return self.stale(stale)
                ?? Self.response(503, TMDbServeAnswer.unavailable, outcome: .error, retryAfter: retryAfter)
        case .refused?:
            return self.stale(stale) ?? Self.response(503, TMDbServeAnswer.tokenRefused, outcome: .error)
        case nil:
            // The deadline passed; the call goes on and stores its answer for the next request.
            return self.stale(stale)
                ?? Self.response(503, TMDbServeAnswer.unavailable, outcome: .error, retryAfter: 1)
        }
    }

    /// An expired answer, served with `Age` and `Warning: 110` as OMDb's stale answers are.
    private func stale(_ answer: CachedAnswer?) -> ServeResponse? {
        guard let answer else { return nil }
        var response = ServeResponse.stale(answer.body, age: time.now.timeIntervalSince(answer.answeredAt))
        response.status = answer.found ? 200 : 404
        response.contentType = TMDbServeAnswer.contentType
        return response
    }

    private func store(_ answer: CachedAnswer) async {
        remember(answer, until: freshUntil(answer, at: answer.answeredAt))
        do {
            try await store.storeAnswers([answer])
        } catch {
            logger.error("an answer could not be stored", metadata: ["error": "\(error)"])
        }
    }

    private func remember(_ answer: CachedAnswer, until: Date) {
        memo.put((answer.found ? "200 " : "404 ") + answer.query, answer.body, freshUntil: until)
    }

    /// When a stored answer stops being fresh, seen at `now`: at once for one answered in the future.
    private func freshUntil(_ answer: CachedAnswer, at now: Date) -> Date {
        guard answer.answeredAt.timeIntervalSince(now) <= FreshnessPolicy.clockSkew else { return now }
        return answer.answeredAt.addingTimeInterval(answer.found ? settings.answerTTL : settings.negativeAnswerTTL)
    }

    /// A response in TMDb's media type.
    private static func response(_ status: Int, _ body: [UInt8], outcome: ServeResponse.Outcome, retryAfter: Int? = nil)
        -> ServeResponse
    {
        var response = ServeResponse(
            status: status, body: body, outcome: outcome,
            headers: retryAfter.map { [("Retry-After", "\(max(1, $0))")] } ?? [])
        response.contentType = TMDbServeAnswer.contentType
        return response
    }
}
