import Foundation
import SplitMix

/// What the connection should do with one request: answer, answer with a cut body, or reset.
struct StandInReply: Sendable {
    /// How the connection answers.
    enum Action: Sendable {
        /// Send the whole response.
        case respond(HTTPResponse)
        /// Send the head with the full `Content-Length`, then half the body, then close.
        case truncate(HTTPResponse)
        /// Close the connection with a reset, answering nothing.
        case reset
    }

    /// The answer.
    var action: Action
    /// Milliseconds to wait before acting (the configured latency).
    var delayMilliseconds = 0
}

/// Decides every answer and keeps the counters; independent of sockets so all policy sits in one place.
final class StandInEngine: Sendable {
    private struct State {
        /// Current limits, faults and latency.
        var behaviour: StandInBehaviour
        /// Decides which requests fault, in arrival order.
        var faultGenerator: SplitMix64
        /// Requests to `/`.
        var totalRequests = 0
        /// Requests to `/__standin/…`.
        var controlRequests = 0
        /// Accepted TCP connections.
        var connectionsAccepted = 0
        /// Counters per accepted key.
        var keyCounters: [StandInCounters]
        /// IDs each accepted key has been served a film for.
        var servedIDs: [Set<String>]
        /// Quota used per accepted key since the last reset.
        var usedToday: [Int]
        /// Counters of requests without an accepted key.
        var unaccepted = StandInCounters()
        /// Injected faults by kind name.
        var faultsByKind: [String: Int] = [:]
        /// Poster requests.
        var posters = StandInPosterCounters()

        /// Fresh counters for `keyCount` keys.
        init(behaviour: StandInBehaviour, keyCount: Int) {
            self.behaviour = behaviour
            faultGenerator = SplitMix64(seed: behaviour.seed)
            keyCounters = Array(repeating: StandInCounters(), count: keyCount)
            usedToday = Array(repeating: 0, count: keyCount)
            servedIDs = Array(repeating: [], count: keyCount)
        }
    }

    private let corpus: FilmCorpus
    private let answers: OMDbAnswers
    /// The corpus's IDs in order, for the `wrong-id` fault.
    private let sortedIDs: [String]
    private let keyIndex: [String: Int]
    private let fingerprints: [String]
    private let state: Locked<State>
    /// The TMDb API, its images and controls.
    let tmdb: TMDbService

    /// Creates an engine for the configured keys, corpus and behaviour.
    init(configuration: StandInConfiguration) {
        corpus = configuration.corpus
        answers = OMDbAnswers(corpus: configuration.corpus)
        sortedIDs = configuration.corpus.entries.keys.sorted()
        var keyIndex: [String: Int] = [:]
        for (index, key) in configuration.apiKeys.enumerated() where keyIndex[key] == nil {
            keyIndex[key] = index
        }
        self.keyIndex = keyIndex
        fingerprints = configuration.apiKeys.map(StandInConfiguration.fingerprint(ofKey:))
        state = Locked(State(behaviour: configuration.behaviour, keyCount: configuration.apiKeys.count))
        tmdb = TMDbService(corpus: configuration.corpus, tokens: configuration.tmdbTokens)
    }

    // MARK: - Introspection

    /// Counts an accepted connection.
    func noteConnectionAccepted() {
        state.withLock { $0.connectionsAccepted += 1 }
    }

    /// A snapshot of all counters.
    func stats() -> StandInStats {
        let tmdb = tmdb.stats()
        return state.withLock { state in
            StandInStats(
                totalRequests: state.totalRequests,
                controlRequests: state.controlRequests,
                connectionsAccepted: state.connectionsAccepted,
                keys: state.keyCounters.indices.map { index in
                    StandInKeyStats(
                        index: index, fingerprint: fingerprints[index], usedToday: state.usedToday[index],
                        counters: state.keyCounters[index])
                },
                unaccepted: state.unaccepted,
                faultsByKind: state.faultsByKind, posters: state.posters, tmdb: tmdb)
        }
    }

    /// The counters of an accepted key, nil for others.
    func counters(forKey key: String) -> StandInCounters? {
        guard let index = keyIndex[key] else { return nil }
        return state.withLock { $0.keyCounters[index] }
    }

    /// The current behaviour.
    var behaviour: StandInBehaviour {
        state.withLock { $0.behaviour }
    }

    /// Zeroes every counter and each key's daily usage, and restarts the fault sequence from its seed.
    func reset() {
        state.withLock { state in
            state = State(behaviour: state.behaviour, keyCount: state.keyCounters.count)
        }
        tmdb.reset()
    }

    /// Replaces the behaviour; the fault sequence restarts when the seed changes.
    func updateBehaviour(_ behaviour: StandInBehaviour) {
        state.withLock { state in
            if behaviour.seed != state.behaviour.seed { state.faultGenerator = SplitMix64(seed: behaviour.seed) }
            state.behaviour = behaviour
        }
    }

    // MARK: - Answers

    /// Decides the answer to one request and counts it.
    func handle(_ request: HTTPRequest) -> StandInReply {
        if request.path.hasPrefix("/__standin/") {
            state.withLock { $0.controlRequests += 1 }
            return StandInReply(action: .respond(control(request)))
        }
        if request.path.hasPrefix("/3/") || request.path.hasPrefix(TMDbImages.path),
            request.method != "GET" && request.method != "HEAD"
        {
            return StandInReply(
                action: .respond(.text("Method Not Allowed", status: 405, extraHeaders: [("Allow", "GET")])))
        }
        if request.path.hasPrefix("/3/") {
            return tmdb.answer(
                request, behaviour: behaviour, drawFault: drawTMDbFault, faultAction: tmdbFaultAction)
        }
        if request.path.hasPrefix(TMDbImages.path) {
            return tmdb.image(request, behaviour: behaviour)
        }
        if request.path.hasPrefix(PosterImages.path), behaviour.servePosters {
            return StandInReply(action: .respond(poster(request)), delayMilliseconds: behaviour.latencyMilliseconds)
        }
        guard request.path == "/" else {
            return StandInReply(action: .respond(.text("Not Found", status: 404)))
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return StandInReply(
                action: .respond(.text("Method Not Allowed", status: 405, extraHeaders: [("Allow", "GET")])))
        }
        return omdb(request)
    }

    private func omdb(_ request: HTTPRequest) -> StandInReply {
        state.withLock { state in
            state.totalRequests += 1
            let delay = state.behaviour.latencyMilliseconds
            func answer(_ response: HTTPResponse) -> StandInReply {
                StandInReply(action: .respond(response), delayMilliseconds: delay)
            }
            guard let key = request.query["apikey"], !key.isEmpty else {
                state.unaccepted.requests += 1
                state.unaccepted.missingKey += 1
                return answer(.omdbError("No API key provided.", status: 401))
            }
            guard let index = keyIndex[key] else {
                state.unaccepted.requests += 1
                state.unaccepted.invalidKey += 1
                return answer(.omdbError("Invalid API key!", status: 401))
            }
            state.keyCounters[index].requests += 1
            state.usedToday[index] += 1
            let overDaily = state.behaviour.dailyLimit.map { state.usedToday[index] > $0 } ?? false
            let overTotal = state.behaviour.limitAfter.map { state.totalRequests > $0 } ?? false
            if overDaily || overTotal {
                state.keyCounters[index].limitReached += 1
                return answer(.omdbError("Request limit reached!", status: 401))
            }
            var lookup = answers.answer(request.query)
            if state.behaviour.servePosters {
                lookup.response.body = Self.pointingPosters(lookup.response.body, at: request.header("host"))
            }
            if let fault = drawFault(&state) {
                state.keyCounters[index].faults += 1
                state.faultsByKind[fault.rawValue, default: 0] += 1
                return StandInReply(
                    action: action(for: fault, body: lookup.response.body, id: request.query["i"], key: key),
                    delayMilliseconds: delay)
            }
            switch lookup.outcome {
            case .film(let servedID):
                state.keyCounters[index].films += 1
                if let servedID, !state.servedIDs[index].insert(servedID).inserted {
                    state.keyCounters[index].filmsServedAgain += 1
                }
            case .search: state.keyCounters[index].searches += 1
            case .season: state.keyCounters[index].seasons += 1
            case .notFound: state.keyCounters[index].notFound += 1
            case .badRequest: state.keyCounters[index].badRequests += 1
            }
            return answer(lookup.response)
        }
    }

    /// `body` with its `Poster` URLs (one per film, several in a search) on OMDb's image host moved
    /// to this server's `/posters/`.
    private static func pointingPosters(_ body: [UInt8], at host: String?) -> [UInt8] {
        let prefix = Array(PosterImages.corpusPrefix.utf8)
        guard body.firstRange(of: prefix) != nil else { return body }
        return Array(body.replacing(prefix, with: Array("http://\(host ?? "127.0.0.1")\(PosterImages.path)".utf8)))
    }

    /// Answers `GET /posters/NAME`: the image, a 304 to a request naming its validators, or the
    /// poster fault this poster is chosen for.
    private func poster(_ request: HTTPRequest) -> HTTPResponse {
        let name = String(request.path.dropFirst(PosterImages.path.count))
        return state.withLock { state in
            state.posters.requests += 1
            let behaviour = state.behaviour
            let faults = behaviour.posterFaults
            if !faults.isEmpty, Double(PosterImages.percentile(name: name)) < behaviour.posterFaultRate * 100 {
                state.posters.faults += 1
                let fault = faults[PosterImages.percentile(name: name + "#") % faults.count]
                let page = Array("<html><body>Image not available</body></html>".utf8)
                let response: HTTPResponse
                switch fault {
                case .gone: response = .text("Not Found", status: 404)
                case .unavailable: response = .text("Service Unavailable", status: 503)
                case .html: response = HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: page)
                case .mislabelled: response = HTTPResponse(status: 200, contentType: "image/jpeg", body: page)
                case .huge:
                    response = HTTPResponse(
                        status: 200, contentType: "image/jpeg",
                        body: [0xFF, 0xD8, 0xFF] + Array(repeating: 0, count: 8 << 20))
                }
                state.posters.bytes += response.body.count
                return response
            }
            let version = behaviour.posterVersion
            let etag = PosterImages.etag(name: name, version: version)
            let lastModified = PosterImages.lastModified(version: version)
            let validators = [("ETag", etag), ("Last-Modified", lastModified)]
            let matches =
                request.header("if-none-match").map {
                    $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag }
                }
                ?? (request.header("if-modified-since") == lastModified)
            if matches {
                state.posters.notModified += 1
                return HTTPResponse(status: 304, contentType: "image/jpeg", extraHeaders: validators, body: [])
            }
            let image = PosterImages.image(name: name, version: version)
            state.posters.images += 1
            state.posters.bytes += image.count
            return HTTPResponse(status: 200, contentType: "image/jpeg", extraHeaders: validators, body: image)
        }
    }

    /// The next fault of the seeded sequence for a TMDb request, counted by kind; nil when none is drawn.
    private func drawTMDbFault() -> FaultKind? {
        state.withLock { state in
            let fault = drawFault(&state)
            if let fault, TMDbService.faultKinds.contains(fault) { state.faultsByKind[fault.rawValue, default: 0] += 1 }
            return fault
        }
    }

    /// What a TMDb request faulted with `fault` gets, for the faults that are not about OMDb's
    /// bodies; nil for the others (the request is answered normally).
    private func tmdbFaultAction(_ fault: FaultKind, body: [UInt8]) -> StandInReply.Action? {
        guard TMDbService.faultKinds.contains(fault) else { return nil }
        return action(for: fault, body: body, id: nil, key: "")
    }

    private func drawFault(_ state: inout State) -> FaultKind? {
        let behaviour = state.behaviour
        guard behaviour.faultRate > 0, !behaviour.faults.isEmpty else { return nil }
        guard state.faultGenerator.unit() < behaviour.faultRate else { return nil }
        return state.faultGenerator.pick(behaviour.faults)
    }

    private func action(for fault: FaultKind, body: [UInt8], id: String?, key: String) -> StandInReply.Action {
        switch fault {
        case .internalServerError: .respond(.text("Internal Server Error", status: 500))
        case .serviceUnavailable: .respond(.text("Service Unavailable", status: 503))
        case .tooManyRequests: .respond(.text("Too Many Requests", status: 429))
        case .tooManyRequestsRetryAfter:
            .respond(.text("Too Many Requests", status: 429, extraHeaders: [("Retry-After", "1")]))
        case .serviceUnavailableRetryAfter:
            .respond(.text("Service Unavailable", status: 503, extraHeaders: [("Retry-After", "1")]))
        case .reset: .reset
        case .truncate: .truncate(HTTPResponse(status: 200, body: body))
        case .malformed: .respond(HTTPResponse(status: 200, body: Array(body.prefix(max(1, body.count / 2)))))
        case .errorGettingData: .respond(.omdbError("Error getting data."))
        case .html403:
            .respond(
                HTTPResponse(
                    status: 403, contentType: "text/html; charset=UTF-8", extraHeaders: [],
                    body: Array(Self.blockPage.utf8)))
        case .html404:
            .respond(
                HTTPResponse(
                    status: 404, contentType: "text/html", extraHeaders: [],
                    body: Array("<html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n".utf8)))
        case .redirect302:
            .respond(.text("Found", status: 302, extraHeaders: [("Location", "http://omdb.example/elsewhere")]))
        case .emptyFilm: .respond(HTTPResponse(status: 200, body: Array(#"{"Response":"True"}"#.utf8)))
        case .wrongID: .respond(HTTPResponse(status: 200, body: otherBody(than: id) ?? body))
        case .nul:
            .respond(
                HTTPResponse(
                    status: 200,
                    body: Array(
                        String(decoding: body, as: UTF8.self)
                            .replacingOccurrences(of: #""Title":""#, with: #""Title":"NUL\u0000"#).utf8)))
        case .echoNotFound:
            .respond(.omdbError("Movie not found! (GET /?apikey=\(key)&i=\(id ?? ""))", status: 200))
        case .echoFilm:
            .respond(HTTPResponse(status: 200, body: Self.echoing(key: key, id: id, in: body)))
        }
    }

    /// `body` with its Plot starting with the request URL, `/` escaped and the key's first
    /// character as a `\u00XX` escape.
    private static func echoing(key: String, id: String?, in body: [UInt8]) -> [UInt8] {
        guard let first = key.unicodeScalars.first, first.isASCII else { return body }
        let escaped = String(format: "\\u%04x", first.value) + String(key.unicodeScalars.dropFirst())
        let echo = "cached from http:\\/\\/omdb.example\\/?apikey=\(escaped)&i=\(id ?? "")\\/ "
        return Array(
            String(decoding: body, as: UTF8.self).replacingOccurrences(of: #""Plot":""#, with: #""Plot":""# + echo).utf8
        )
    }

    /// A CDN's bot-check page, as a block at OMDb's address would look.
    static let blockPage = """
        <!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head>
        <body><h1>Sorry, you have been blocked</h1><p>Ray ID: 8f3a1b2c</p></body></html>

        """

    /// The body of the film after `id` in ID order (the first after the last): what OMDb sends when
    /// IMDb merged `id` into another title.
    private func otherBody(than id: String?) -> [UInt8]? {
        guard !sortedIDs.isEmpty else { return nil }
        let index = id.flatMap { id in sortedIDs.firstIndex { $0 > id } } ?? 0
        return corpus.body(forID: sortedIDs[index % sortedIDs.count])
    }
}
