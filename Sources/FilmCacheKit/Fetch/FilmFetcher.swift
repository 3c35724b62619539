import Foundation
import Logging

/// What one ID's fetch came to, after retries.
enum FetchResult: Sendable {
    case film(NormalizedFilm)
    /// A query's (``FetchTarget/query(_:)``) answer with `"Response":"True"`, OMDb's body as sent.
    case answer([UInt8])
    case notFound(String)
    /// `sent` is `false` when the last try never left (its call was given back).
    case failed(String, httpStatus: Int?, sent: Bool = true)
    case limitReached(String)
    case noBudget
    /// The circuit breaker ended the run before this ID was sent.
    case circuitOpen
    /// A stop was requested before this ID got an answer; it is left for the next run.
    case stopped
    /// Answers that are not OMDb's came in a row; the run ends (``StopReason/notOMDb``).
    case notOMDb(String)
    /// No connection could be opened, several times in a row before any answer.
    case unreachable(String)
}

/// Fetches IDs one at a time for a run: waits for the breaker and the rate limit, takes a call
/// from the quota gate, sends, classifies the answer and retries transient failures with backoff.
///
/// Every wait is on `clock`, so tests drive it with a manual clock.
struct FilmFetcher<C: Clock>: Sendable where C.Duration == Duration {
    let transport: any HTTPTransport
    /// The request URL up to the ID.
    let urlPrefix: String
    /// The request URL up to its query, for a title's `t=`.
    let requestPrefix: String
    /// The key the URLs carry, looked for in every answer: an answer that echoes it is never stored
    /// as a film, and a message that holds it is kept with the key masked.
    let echo: SecretEcho
    let backoff: Backoff
    let gate: QuotaGate
    let pacing: Pacing<C>
    let stop: WarmStop
    let tally: WarmTally
    let clock: C
    /// The wall clock, for `fetched_at` and `Retry-After` dates.
    let now: @Sendable () -> Date
    let logger: Logger
    /// Whether a breaker's pause is waited out (a warm) or answered at once with `.circuitOpen`
    /// (`filmcache serve`, whose clients must never wait on it).
    var waitsOutPauses = true
    let normalizer = FilmNormalizer()

    /// Fetches one ID (`i=`) or resolves one title (`t=`, `y=`, `type=`), retrying transient failures
    /// with backoff; every try is a counted call.
    ///
    /// Each try waits for the circuit breaker and the rate limiter, then takes one call from
    /// the quota gate before anything is sent. Once `stop` is requested no try is started and
    /// every wait ends at once; a request already sent is waited for.
    func fetch(_ target: FetchTarget) async throws -> FetchResult {
        // A title's answer may name any ID: there is none to hold it to.
        let id = target.imdbID ?? ""
        let url: String
        switch target {
        case .id: url = urlPrefix + id
        case .title(let entry): url = requestPrefix + entry.query.requestQuery
        case .query(let query, _): url = requestPrefix + query
        }
        // What the call was for, in a log line; built only when one is logged.
        func subject(_ more: Logger.Metadata) -> Logger.Metadata {
            let what: Logger.Metadata
            switch target {
            case .id: what = ["imdb_id": "\(id)"]
            case .title(let entry): what = ["title": "\(entry.query)", "at": "\(entry.place)"]
            case .query(let query, _): what = ["query": "\(query)"]
            }
            return what.merging(more) { $1 }
        }
        var schedule = RetrySchedule<C>(backoff: backoff)
        var attempt = 0
        while true {
            if stop.isRequested { return .stopped }
            switch pacing.breakerCheck(at: clock.now) {
            case .proceed: break
            case .pause(let until):
                guard waitsOutPauses else { return .circuitOpen }
                guard try await stop.unlessStopped({ try await clock.sleep(until: until, tolerance: nil) }) else {
                    return .stopped
                }
            case .stop: return .circuitOpen
            }
            if let rateGate = pacing.rateGate {
                guard try await stop.unlessStopped({ try await rateGate.acquire() }) else { return .stopped }
            }
            if stop.isRequested { return .stopped }
            guard try await gate.acquire() else { return .noBudget }
            attempt += 1
            var response = HTTPResponse(status: 0, body: [])
            var failure: TransportFailure?
            do {
                response = try await transport.get(url)
            } catch {
                failure = error
            }
            var normalized: NormalizedFilm?
            let echoed = echo.isEchoed(in: response.body) || response.contentType.map(echo.isEchoed(in:)) == true
            if echoed {
                response.body = echo.redacting(response.body)
                response.contentType = response.contentType.map { echo.redacting($0, replacement: SecretEcho.withheld) }
            }
            let body: FetchOutcome.Body
            if failure != nil {
                body = .malformed
            } else if case .query(_, let shape) = target {
                body = OMDbAnswer.classify(response.body, as: shape)
            } else {
                switch try? normalizer.normalize(body: response.body, requestedID: id, fetchedAt: now()) {
                case .film(let film)?:
                    normalized = film
                    body = .film
                case .error(let message)?: body = .error(message)
                case nil: body = .malformed
                }
            }
            // Told apart by OMDb's words as sent; every message kept or shown has the key cut out.
            var outcome = FetchOutcome.classify(
                status: response.status, body: body, transportFailure: failure, retryAfter: response.retryAfter)
            if echoed { outcome = outcome.redacting(echo) }
            switch outcome {
            case .film where echoed:
                // Not OMDb's answer (OMDb never repeats the key): never stored, never served.
                let what = "an answer that echoes the API key (never stored)"
                logger.warning("not an OMDb answer", metadata: subject(["answer": "\(what)"]))
                if pacing.recordForeign(at: clock.now).endsRun { return .notOMDb(what) }
                return .failed("not an OMDb answer: \(what)", httpStatus: response.status)
            case .film:
                pacing.recordSuccess()
                if case .query = target { return .answer(response.body) }
                guard let normalized, PlainTextWorklist.isIMDbID(normalized.film.imdbID) else {
                    return .failed(normalized == nil ? "no film body" : "the answer names no IMDb ID", httpStatus: 200)
                }
                return .film(normalized)
            case .notFound(let message):
                pacing.recordSuccess()
                return .notFound(message)
            case .limitReached(let message):
                return .limitReached(message)
            case .invalidKey(let message):
                throw WarmError.invalidKey(message: message)
            case .rejected(let status, let message):
                _ = pacing.recordRejected(at: clock.now)
                return .failed("HTTP \(status)\(message.map { ": " + $0 } ?? "")", httpStatus: status)
            case .notOMDb(let status):
                let what = describeForeign(response)
                logger.debug("not an OMDb answer", metadata: subject(["answer": "\(what)"]))
                if pacing.recordForeign(at: clock.now).endsRun { return .notOMDb(what) }
                return .failed("not an OMDb answer: \(what)", httpStatus: status)
            case .transient(let reason, let retryAfter):
                let what = Self.describe(reason, status: response.status) + " (attempt \(attempt))"
                logger.debug("transient failure", metadata: subject(["error": "\(what)"]))
                var sent = true
                if case .transport(.connectFailed(let why)) = reason {
                    // The request never left: the call goes back to the ledger and is not counted.
                    gate.giveBack()
                    sent = false
                    if pacing.noteUnreachable(why) { return .unreachable(why) }
                }
                let action: CircuitBreaker<C>.Action
                if case .malformedBody = reason {
                    let foreign = pacing.recordForeign(at: clock.now)
                    if foreign.endsRun { return .notOMDb(describeForeign(response)) }
                    action = foreign.action
                } else {
                    action = pacing.recordFailure(at: clock.now)
                }
                if case .stop = action { return .failed(what, httpStatus: nil, sent: sent) }
                let wait = retryAfter?.delay(relativeTo: now())
                switch schedule.recordFailure(at: clock.now, retryAfter: wait) {
                case .retry(let at):
                    if sent { tally.withLock { $0.calls[.retried, default: 0] += 1 } }
                    guard try await stop.unlessStopped({ try await clock.sleep(until: at, tolerance: nil) }) else {
                        return .stopped
                    }
                case .giveUp:
                    return .failed(what, httpStatus: response.status == 0 ? nil : response.status, sent: sent)
                }
            }
        }
    }

    /// Words for an answer that is not OMDb's (``ForeignAnswer``), its body withheld when it
    /// still holds the key in an escaped spelling.
    private func describeForeign(_ response: HTTPResponse) -> String {
        var response = response
        if echo.isEchoed(in: response.body) { response.body = Array(SecretEcho.withheld.utf8) }
        return ForeignAnswer.describe(response)
    }

    /// Words for a transient failure, for logs and the `lookups` table.
    static func describe(_ reason: FetchOutcome.TransientReason, status: Int) -> String {
        switch reason {
        case .transport(let failure): "\(failure)"
        case .status(let code): "HTTP \(code)"
        case .serviceError(let message): "HTTP \(status): \(message)"
        case .malformedBody: "HTTP \(status): malformed body"
        }
    }
}
