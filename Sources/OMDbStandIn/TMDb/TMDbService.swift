import Foundation

/// The TMDb half of the stand-in: API v3 under `/3/`, images under `/t/p/`, and its controls
/// under `/__standin/tmdb/`; it keeps its own tokens, gate, changes feed and counters.
///
/// An API request is decided in this order: the gate (a storm, an announced `Retry-After` not yet
/// passed, the per-second limit: 429), the token (401), an injected fault, the answer.
final class TMDbService: Sendable {
    private struct State {
        /// Limits, storms and announced waits.
        var gate = TMDbGate()
        /// Which titles changed when.
        var feed = TMDbChangesFeed()
        /// Counters.
        var stats: TMDbStats
    }

    /// The injected faults that apply to TMDb requests too: those about HTTP and the wire, not
    /// about OMDb's bodies.
    static let faultKinds: Set<FaultKind> = [
        .internalServerError, .serviceUnavailable, .tooManyRequests, .tooManyRequestsRetryAfter,
        .serviceUnavailableRetryAfter, .reset, .truncate, .malformed, .html403, .html404, .redirect302,
    ]

    /// The catalog answered from.
    let catalog: TMDbCatalog
    private let answers: TMDbAnswers
    private let tokenIndex: [String: Int]
    private let fingerprints: [String]
    private let state: Locked<State>

    /// Creates the service over `corpus`, accepting `tokens`.
    init(corpus: FilmCorpus, tokens: [String]) {
        catalog = TMDbCatalog(corpus: corpus)
        answers = TMDbAnswers(bodies: TMDbBodies(catalog: catalog))
        var tokenIndex: [String: Int] = [:]
        for (index, token) in tokens.enumerated() where tokenIndex[token] == nil { tokenIndex[token] = index }
        self.tokenIndex = tokenIndex
        fingerprints = tokens.map(StandInConfiguration.fingerprint(ofKey:))
        state = Locked(State(stats: TMDbStats(fingerprints: fingerprints)))
    }

    /// A snapshot of the counters.
    func stats() -> TMDbStats {
        let now = ContinuousClock.now
        return state.withLock { state in
            var stats = state.stats
            stats.retryAfterPending = state.gate.isInsideRetryAfter(at: now)
            return stats
        }
    }

    /// Zeroes the counters and forgets the window, storm and announced wait; the changes feed stays.
    func reset() {
        state.withLock { state in
            state.stats = TMDbStats(fingerprints: fingerprints)
            state.gate.reset()
        }
    }

    // MARK: - API

    /// Answers an API request (path under `/3/`); `drawFault` draws the engine's next fault, if any.
    func answer(
        _ request: HTTPRequest, behaviour: StandInBehaviour, drawFault: () -> FaultKind?,
        faultAction: (FaultKind, [UInt8]) -> StandInReply.Action?
    ) -> StandInReply {
        let delay = behaviour.latencyMilliseconds
        let kind = TMDbAnswers.kind(of: request.path)
        let now = ContinuousClock.now
        let admitted = state.withLock { state -> Result<TMDbChangesFeed, TMDbRefusal> in
            state.stats.requests += 1
            state.stats.byKind[kind.rawValue, default: 0] += 1
            if state.gate.isEarly(at: now) { state.stats.requestsInsideRetryAfter += 1 }
            let decision = state.gate.admit(
                at: now, rateLimit: behaviour.tmdbRateLimit, retryAfterSeconds: behaviour.tmdbRetryAfterSeconds)
            if case .tooManyRequests(let seconds) = decision {
                state.stats.byStatus["429", default: 0] += 1
                return .failure(.tooManyRequests(seconds: seconds, limit: behaviour.tmdbRateLimit ?? 40))
            }
            guard let index = token(of: request).flatMap({ tokenIndex[$0] }) else {
                state.stats.unauthorized += 1
                state.stats.byStatus["401", default: 0] += 1
                return .failure(.unauthorized)
            }
            state.stats.tokens[index].requests += 1
            return .success(state.feed)
        }
        let feed: TMDbChangesFeed
        switch admitted {
        case .failure(.tooManyRequests(let seconds, let limit)):
            let response = TMDbAnswers.error(
                429, code: 25, "Your request count (#) is over the allowed limit of (\(limit)).",
                extraHeaders: [("Retry-After", String(seconds))])
            return StandInReply(action: .respond(response), delayMilliseconds: delay)
        case .failure(.unauthorized):
            return StandInReply(action: .respond(TMDbAnswers.unauthorized), delayMilliseconds: delay)
        case .success(let current):
            feed = current
        }
        let answer = answers.answer(
            path: request.path, query: request.query, host: request.header("host"), feed: feed,
            today: TMDbDay(date: Date()), pageSize: behaviour.tmdbChangesPageSize)
        if let fault = drawFault(), let action = faultAction(fault, answer.response.body) {
            state.withLock { $0.stats.byStatus[Self.status(of: action), default: 0] += 1 }
            return StandInReply(action: action, delayMilliseconds: delay)
        }
        state.withLock { state in
            state.stats.byStatus[String(answer.response.status), default: 0] += 1
            guard answer.response.status == 200 else { return }
            if let details = answer.details { state.stats.detailsFetches[details, default: 0] += 1 }
            if let find = answer.find { state.stats.findFetches[find, default: 0] += 1 }
        }
        return StandInReply(action: .respond(answer.response), delayMilliseconds: delay)
    }

    /// Why the gate or the token refused a request.
    private enum TMDbRefusal: Error {
        case tooManyRequests(seconds: Int, limit: Int)
        case unauthorized
    }

    /// The token of `Authorization: Bearer TOKEN`, else of `api_key=TOKEN`.
    private func token(of request: HTTPRequest) -> String? {
        if let header = request.header("authorization") {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return request.query["api_key"]
    }

    /// The status a fault's action answers with, as stats count it (`reset` for none).
    private static func status(of action: StandInReply.Action) -> String {
        switch action {
        case .respond(let response), .truncate(let response): String(response.status)
        case .reset: "reset"
        }
    }

    // MARK: - Images

    /// Answers `GET /t/p/{size}/{file}`: the image for a file name the bodies hand out in a size
    /// `/configuration` lists, else 404. Needs no token and never meets the gate.
    func image(_ request: HTTPRequest, behaviour: StandInBehaviour) -> StandInReply {
        let parts = request.path.dropFirst(TMDbImages.path.count).split(
            separator: "/", omittingEmptySubsequences: false)
        let delay = behaviour.latencyMilliseconds
        return state.withLock { state in
            state.stats.byKind["image", default: 0] += 1
            guard parts.count == 2, TMDbImages.allSizes.contains(String(parts[0])),
                TMDbImages.isKnown(file: String(parts[1]))
            else {
                return StandInReply(action: .respond(.text("Not Found", status: 404)), delayMilliseconds: delay)
            }
            let name = String(parts[1])
            let image = PosterImages.image(name: name, version: behaviour.posterVersion)
            state.stats.imagesBySize[String(parts[0]), default: 0] += 1
            let response = HTTPResponse(
                status: 200, contentType: "image/jpeg",
                extraHeaders: [
                    ("ETag", PosterImages.etag(name: name, version: behaviour.posterVersion)),
                    ("Last-Modified", PosterImages.lastModified(version: behaviour.posterVersion)),
                ], body: image)
            return StandInReply(action: .respond(response), delayMilliseconds: delay)
        }
    }

    // MARK: - Controls

    /// Answers `POST /__standin/tmdb/storm`, `POST /__standin/tmdb/changes`,
    /// `POST /__standin/tmdb/changes/clear` and `GET /__standin/tmdb/changes`; nil for other paths.
    func control(_ request: HTTPRequest) -> HTTPResponse? {
        switch (request.path, request.method) {
        case ("/__standin/tmdb/storm", "POST"):
            guard let requests = Int(request.query["requests"] ?? ""), requests >= 0 else {
                return .text("requests must be a non-negative integer", status: 400)
            }
            let retryAfter = Int(request.query["retry_after"] ?? "1") ?? 0
            guard retryAfter >= 1 else { return .text("retry_after must be a positive integer", status: 400) }
            state.withLock { $0.gate.startStorm(requests: requests, retryAfterSeconds: retryAfter) }
            return TMDbAnswers.json(.object([("requests", .int(requests)), ("retry_after", .int(retryAfter))]))
        case ("/__standin/tmdb/changes", "POST"):
            return markChanges(request.query)
        case ("/__standin/tmdb/changes/clear", "POST"):
            let cleared = state.withLock { state in
                let count = state.feed.changes.count
                state.feed.clear()
                return count
            }
            return TMDbAnswers.json(.object([("cleared", .int(cleared))]))
        case ("/__standin/tmdb/changes", "GET"):
            let changes = state.withLock { $0.feed.changes }
            return TMDbAnswers.json(.object([("changes", .array(changes.map { Self.json($0.title, day: $0.day) }))]))
        case ("/__standin/tmdb/storm", _), ("/__standin/tmdb/changes", _), ("/__standin/tmdb/changes/clear", _):
            return .text("Method Not Allowed", status: 405)
        default:
            return nil
        }
    }

    /// Marks the titles `ids=movie:1,tv:2` names, or `count=N` titles drawn by `seed=S`, changed on
    /// `date` (today in UTC by default).
    private func markChanges(_ query: [String: String]) -> HTTPResponse {
        let day: TMDbDay
        if let text = query["date"], !text.isEmpty {
            guard let parsed = TMDbDay(text) else {
                return .text("date must be YYYY-MM-DD, got '\(text)'", status: 400)
            }
            day = parsed
        } else {
            day = TMDbDay(date: Date())
        }
        var titles: [TMDbTitle] = []
        if let ids = query["ids"] {
            for key in ids.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !key.isEmpty {
                guard let title = catalog.title(key: key) else {
                    return .text("no title \(key) on TMDb (name titles as movie:ID or tv:ID)", status: 400)
                }
                if !titles.contains(title) { titles.append(title) }
            }
        } else if let countText = query["count"] {
            guard let count = Int(countText), count >= 0 else {
                return .text("count must be a non-negative integer, got '\(countText)'", status: 400)
            }
            guard let seed = UInt64(query["seed"] ?? "1") else {
                return .text("seed must be a non-negative integer", status: 400)
            }
            titles = TMDbChangesFeed.draw(count, from: catalog, seed: seed)
        } else {
            return .text("name the titles with ids=movie:ID,tv:ID or count=N&seed=S", status: 400)
        }
        state.withLock { state in
            for title in titles { state.feed.mark(title, day: day) }
        }
        return TMDbAnswers.json(
            .object([("date", .string(day.text)), ("marked", .array(titles.map { Self.json($0, day: nil) }))]))
    }

    private static func json(_ title: TMDbTitle, day: TMDbDay?) -> TMDbJSON {
        var members: [(String, TMDbJSON)] = [
            ("media_type", .string(title.mediaType.rawValue)), ("id", .int(title.id)),
            ("imdb_id", .string(title.imdbID)),
        ]
        if let day { members.append(("date", .string(day.text))) }
        return .object(members)
    }
}
