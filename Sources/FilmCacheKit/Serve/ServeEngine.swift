import Foundation
import Logging
import Synchronization

/// What `filmcache serve` answers: OMDb's answers from the cache, fetching what it lacks through
/// the same metered fetch stage as `warm`, once however many ask at once.
///
/// This is the request path: tokens, dispatch, read-through (the memo, then the store), and
/// write-through of what OMDb answers. Its parts beside it: ``ServeFlights`` (one fetch however
/// many ask), ``DemandFlusher`` (request counts, written on a timer) and ``ExhaustionWatcher``
/// (other processes' "limit reached"); the last two run as services in the serve command's group.
///
/// Free of HTTP: the server hands it a request's query items and sends what it returns.
public final class ServeEngine: Sendable {
    private let store: any ServeStore
    private let tokens: Mutex<ServeTokens>
    private let configuration: WarmConfiguration
    private let settings: ServeSettings
    private let upstream: ServeUpstream
    private let time: TimeSource
    private let logger: Logger
    private let flights: ServeFlights<ServeResolution>
    private let normalizer = FilmNormalizer()
    private let memo: AnswerMemo
    /// The request counts, written to the cache while its ``DemandFlusher/run()`` runs.
    public let demand: DemandFlusher
    /// Other processes' limit notices, heard while its ``ExhaustionWatcher/run()`` runs.
    public let exhaustion: ExhaustionWatcher

    /// An endpoint over `store` accepting `tokens`, asking OMDb through `transport` as
    /// `configuration` says (key, base URL, limits, freshness), every wait and instant from `time`.
    public init(
        store: any ServeStore, tokens: ServeTokens, configuration: WarmConfiguration,
        settings: ServeSettings = ServeSettings(), transport: any HTTPTransport, time: TimeSource, logger: Logger
    ) {
        self.store = store
        self.tokens = Mutex(tokens)
        self.configuration = configuration
        self.settings = settings
        self.time = time
        self.logger = logger
        memo = AnswerMemo(capacity: settings.memoryBytes)
        let upstream = ServeUpstream(
            configuration: configuration, store: store, transport: transport, time: time, logger: logger)
        self.upstream = upstream
        flights = ServeFlights(store: store, settings: settings, time: time, logger: logger)
        demand = DemandFlusher(store: store, interval: settings.demandInterval, time: time, logger: logger)
        exhaustion = ExhaustionWatcher(store: store, upstream: upstream)
    }

    /// The current instant.
    private func now() -> Date { time.now }

    /// The answer to one request, from its query items (`apikey` among them).
    public func respond(to items: [(name: String, value: String)]) async -> ServeResponse {
        guard let token = items.last(where: { $0.name.lowercased() == "apikey" })?.value, !token.isEmpty else {
            return .error(OMDbAnswer.noKey, status: 401, outcome: .refused)
        }
        guard tokens.withLock({ $0.accepts(token) }) else {
            return .error(OMDbAnswer.invalidKey, status: 401, outcome: .refused)
        }
        switch ServeQuery(items) {
        case .film(let id): return await film(id)
        case .answer(let query): return await answer(query)
        case .invalid(let status, let message): return .error(message, status: status, outcome: .refused)
        case .xml:
            var response = ServeResponse(
                status: 200, body: OMDbAnswer.xmlError("This cache answers in JSON only; leave out r=xml."),
                outcome: .refused)
            response.contentType = "text/xml; charset=utf-8"
            return response
        }
    }

    /// The body of a plain film request (`i=` with the short plot, nothing else but `apikey`) when
    /// `token` is accepted and the film's answer is fresh in memory, counted toward the film's
    /// demand as ``respond(to:)`` counts it; nil when the request needs ``respond(to:)``.
    ///
    /// Never waits, so the server answers such a hit where it reads the request.
    public func memoHit(token: String, imdbID: String) -> [UInt8]? {
        guard !token.isEmpty, tokens.withLock({ $0.accepts(token) }),
            let body = memo.fresh("i:" + imdbID, at: now())
        else { return nil }
        count(imdbID)
        return body
    }

    /// Puts in memory the fresh films apps asked for most (``AnswerCache/mostRequested(limit:)``),
    /// most requested first, up to `limit` of them and while memory is under three quarters full
    /// (so that the first are not pushed out again by the last): a serve just started answers them
    /// as hits from its first request. Stops early when its task is cancelled. Returns how many it held.
    ///
    /// The films are read ``fillReadSize`` at a time, one read each (over PostgreSQL one round trip,
    /// not one a film); an ID the read does not find (an alias, a negative answer) is read as a
    /// request reads it.
    public func holdMostRequested(limit: Int) async -> Int {
        guard let entries = try? await store.mostRequested(limit: limit) else { return 0 }
        var held = 0
        for start in stride(from: 0, to: entries.count, by: Self.fillReadSize) {
            let ids = entries[start..<min(start + Self.fillReadSize, entries.count)].map(\.imdbID)
            guard !Task.isCancelled, !memoIsFull, let films = try? await store.films(ids) else { break }
            let found = Dictionary(films.map { ($0.imdbID, $0) }, uniquingKeysWith: { first, _ in first })
            for id in ids {
                guard !Task.isCancelled, !memoIsFull else { break }
                let at = now()
                if let film = found[id] {
                    if memo.fresh("i:" + id, at: at) != nil || hold(film, as: id, at: at) != nil { held += 1 }
                } else if (try? await cachedFilm(id, at: at))?.fresh != nil {
                    held += 1
                }
            }
        }
        return held
    }

    /// How many films the fill at start reads at once.
    static let fillReadSize = 500

    /// Whether memory is three quarters full: where the fill at start stops.
    private var memoIsFull: Bool { memo.bytes >= settings.memoryBytes / 4 * 3 }

    /// Whether `token` is one of the client tokens: what opens the dashboard and `/quota` too.
    public func accepts(token: String) -> Bool {
        tokens.withLock { $0.accepts(token) }
    }

    /// Replaces the accepted tokens (the tokens file read again).
    public func replaceTokens(_ new: ServeTokens) {
        tokens.withLock { $0 = new }
    }

    /// OMDb calls sent so far.
    public var upstreamCalls: Int { upstream.calls }

    // MARK: - Films

    private func film(_ id: String) async -> ServeResponse {
        count(id)
        let cached: (fresh: [UInt8]?, stale: IMDBFilm?)
        do {
            cached = try await cachedFilm(id, at: now())
        } catch {
            return unreadable(error)
        }
        if let body = cached.fresh { return ServeResponse(status: 200, body: body, outcome: .hit) }
        let resolution = await flights.fly("i:" + id) { [self] in await fetchFilm(id) }
        return respond(resolution, stale: cached.stale.map { (Array($0.rawJSON.utf8), $0.lastFetched) })
    }

    /// What the cache holds for `id` at `at`: the body to answer with while fresh (a film, or OMDb's
    /// negative answer not yet due again), else the stale film, if any.
    private func cachedFilm(_ id: String, at: Date) async throws(StoreError) -> (fresh: [UInt8]?, stale: IMDBFilm?) {
        if let body = memo.fresh("i:" + id, at: at) { return (body, nil) }
        var film = try await store.film(id)
        if film == nil, let target = try await store.aliasTarget(of: id) { film = try await store.film(target) }
        if let film {
            if let body = hold(film, as: id, at: at) { return (body, nil) }
            return (nil, film)
        }
        if let lookup = try await store.lookup(id), lookup.status == .notFound, lookup.nextAttemptAt > at {
            let body = OMDbAnswer.error(lookup.message ?? OMDbAnswer.incorrectID)
            memo.put("i:" + id, body, freshUntil: lookup.nextAttemptAt)
            return (body, nil)
        }
        return (nil, nil)
    }

    /// `film`'s body, put in memory under `id` while it is fresh at `at`; `nil` when it is stale. A
    /// row an older normalizer made is still OMDb's body: fresh while its TTL runs.
    private func hold(_ film: IMDBFilm, as id: String, at: Date) -> [UInt8]? {
        let until = freshUntil(film, at: at)
        guard at < until else { return nil }
        let body = Array(film.rawJSON.utf8)
        memo.put("i:" + id, body, freshUntil: until)
        return body
    }

    private func fetchFilm(_ id: String) async -> ServeResolution {
        // A request that read the cache just before another flight for this ID stored its answer
        // (and ended) must not pay again.
        if let body = try? await cachedFilm(id, at: now()).fresh { return .answer(body) }
        let result = await upstream.fetch(.id(id))
        let at = now()
        switch result {
        case .film(let normalized):
            var batch = WriteBatch(films: [normalized.film])
            if normalized.film.imdbID != id {
                batch.aliases = [FilmAlias(askedID: id, imdbID: normalized.film.imdbID, recordedAt: at)]
            }
            await write(batch)
            let body = Array(normalized.film.rawJSON.utf8)
            memo.put("i:" + id, body, freshUntil: freshUntil(normalized.film, at: at))
            return .answer(body)
        case .notFound(let message):
            await write(
                WriteBatch(lookups: [
                    LookupRecord(
                        imdbID: id, status: .notFound, message: message, httpStatus: 200, attemptedAt: at,
                        nextAttemptAt: at.addingTimeInterval(configuration.freshness.notFoundTTL))
                ]))
            let body = OMDbAnswer.error(message)
            memo.put("i:" + id, body, freshUntil: at.addingTimeInterval(configuration.freshness.notFoundTTL))
            return .answer(body)
        default:
            return unavailable(result, at: at)
        }
    }

    // MARK: - Answers to other queries

    private func answer(_ query: AnswerQuery) async -> ServeResponse {
        if let id = query.imdbID { count(id) }
        let cached: (fresh: [UInt8]?, stale: CachedAnswer?)
        do {
            cached = try await cachedAnswer(query, at: now())
        } catch {
            return unreadable(error)
        }
        if let body = cached.fresh {
            if query.imdbID == nil, query.answersWithFilm, let id = OMDbAnswer.imdbID(in: body) { count(id) }
            return ServeResponse(status: 200, body: body, outcome: .hit)
        }
        // One flight a spelling: OMDb's answer to one spelling is not another's when it finds nothing.
        let resolution = await flights.fly("q:" + query.askedKey) { [self] in await fetchAnswer(query) }
        return respond(resolution, stale: cached.stale.map { ($0.body, $0.answeredAt) })
    }

    /// The stored answer to `query` while fresh at `at`, else the stale one, if any: a found answer
    /// under the folded ``AnswerQuery/cacheKey``, else OMDb's negative answer to this very spelling
    /// under ``AnswerQuery/askedKey``.
    private func cachedAnswer(_ query: AnswerQuery, at: Date) async throws(StoreError) -> (
        fresh: [UInt8]?, stale: CachedAnswer?
    ) {
        var stale: CachedAnswer?
        for (key, found) in [(query.cacheKey, true), (query.askedKey, false)] {
            if let body = memo.fresh("q:" + key, at: at) { return (body, nil) }
            // A negative answer stored under the folded key (before spellings were kept apart) is passed over.
            guard let cached = try await store.answer(for: key), cached.found == found else { continue }
            let until = freshUntil(cached, at: at)
            guard at >= until else {
                memo.put("q:" + key, cached.body, freshUntil: until)
                return (cached.body, nil)
            }
            stale = stale ?? cached
        }
        return (nil, stale)
    }

    private func fetchAnswer(_ query: AnswerQuery) async -> ServeResolution {
        if let body = try? await cachedAnswer(query, at: now()).fresh { return .answer(body) }
        let result = await upstream.fetch(.query(query.upstream, shape: query.shape))
        let at = now()
        switch result {
        case .answer(let body):
            // A full plot of another ID (IMDb merged the asked one) is answered as OMDb sent it, but
            // kept under no query of the asked ID: a body is stored only under the ID it names.
            if query.kind == .id, let id = query.imdbID, OMDbAnswer.imdbID(in: body) != id {
                logger.notice(
                    "OMDb answered with another title; answered, not stored",
                    metadata: ["imdb_id": "\(id)", "answered_with": "\(OMDbAnswer.imdbID(in: body) ?? "?")"])
                return .answer(body)
            }
            var batch = WriteBatch()
            if query.answersWithFilm,
                case .film(let normalized)? = try? normalizer.normalize(
                    body: body, requestedID: query.imdbID ?? "", fetchedAt: at),
                PlainTextWorklist.isIMDbID(normalized.film.imdbID)
            {
                let film = normalized.film
                batch.films = [film]
                if let title = query.titleQuery, title.isAnswered(byTitle: film.title, yearStart: film.yearStart) {
                    batch.titles = [TitleAnswer(query: title, imdbID: film.imdbID, answeredAt: at)]
                }
                if query.imdbID == nil { count(film.imdbID) }
            }
            await store(CachedAnswer(query: query.cacheKey, body: body, found: true, answeredAt: at), with: batch)
            return .answer(body)
        case .notFound(let message):
            let body = OMDbAnswer.error(message)
            var batch = WriteBatch()
            if let title = query.titleQuery {
                batch.titles = [
                    TitleAnswer(
                        query: title, imdbID: nil, answeredAt: at,
                        nextAttemptAt: at.addingTimeInterval(configuration.freshness.titleNotFoundTTL))
                ]
            }
            await store(CachedAnswer(query: query.askedKey, body: body, found: false, answeredAt: at), with: batch)
            return .answer(body)
        default:
            return unavailable(result, at: at)
        }
    }

    // MARK: - Shared steps

    private func unavailable(_ result: FetchResult, at: Date) -> ServeResolution {
        switch result {
        case .limitReached, .noBudget:
            return .limit(until: upstream.spentUntil(at) ?? upstream.quotaDay(containing: at).nextReset)
        default:
            return .down(retryAfter: Int(configuration.circuitBreaker.coolDown.inSeconds.rounded(.up)))
        }
    }

    /// The response to `resolution`, or the stale body (with when it was fetched) when OMDb could not answer.
    private func respond(_ resolution: ServeResolution?, stale: ([UInt8], Date)?) -> ServeResponse {
        let at = now()
        switch resolution {
        case .answer(let body)?:
            return ServeResponse(status: 200, body: body, outcome: .miss)
        case .limit(let until)?:
            if let (body, fetched) = stale { return .stale(body, age: at.timeIntervalSince(fetched)) }
            return .error(
                OMDbAnswer.limitReached, status: 401, outcome: .error,
                retryAfter: Int(until.timeIntervalSince(at).rounded(.up)))
        case .down(let retryAfter)?:
            if let (body, fetched) = stale { return .stale(body, age: at.timeIntervalSince(fetched)) }
            return .error(OMDbAnswer.errorGettingData, status: 503, outcome: .error, retryAfter: retryAfter)
        case nil:
            // The deadline passed; the call goes on and stores its answer for the next request.
            if let (body, fetched) = stale { return .stale(body, age: at.timeIntervalSince(fetched)) }
            return .error(OMDbAnswer.errorGettingData, status: 503, outcome: .error, retryAfter: 1)
        }
    }

    private func unreadable(_ error: any Error) -> ServeResponse {
        logger.error("the cache could not be read", metadata: ["error": "\(error)"])
        return .error(OMDbAnswer.errorGettingData, status: 503, outcome: .error, retryAfter: 5)
    }

    private func write(_ batch: WriteBatch) async {
        guard !batch.isEmpty else { return }
        do {
            try await store.write(batch)
        } catch {
            logger.error("an answer could not be stored", metadata: ["error": "\(error)"])
        }
    }

    private func store(_ answer: CachedAnswer, with batch: WriteBatch) async {
        memo.put("q:" + answer.query, answer.body, freshUntil: freshUntil(answer, at: answer.answeredAt))
        await write(batch)
        do {
            try await store.storeAnswers([answer])
        } catch {
            logger.error("an answer could not be stored", metadata: ["error": "\(error)"])
        }
    }

    /// When a film stops being fresh (its age class's TTL after it was fetched).
    private func freshUntil(_ film: IMDBFilm, at now: Date) -> Date {
        let age = TitleAge(
            type: film.type?.description, yearStart: film.yearStart, yearEnd: film.yearEnd,
            released: film.released?.description)
        return configuration.freshness.freshUntil(fetchedAt: film.lastFetched, title: age, at: now)
    }

    /// When a stored answer stops being fresh, seen at `now`: at once for one answered in the future.
    private func freshUntil(_ answer: CachedAnswer, at now: Date) -> Date {
        guard answer.answeredAt.timeIntervalSince(now) <= FreshnessPolicy.clockSkew else { return now }
        return answer.answeredAt.addingTimeInterval(answer.found ? settings.answerTTL : settings.negativeAnswerTTL)
    }

    // MARK: - Demand

    private func count(_ id: String) {
        demand.count(id)
    }
}
