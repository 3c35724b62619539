import Foundation
import Logging
import Synchronization

/// What one TMDb request came to, after its retries.
package enum TMDbAnswer: Sendable, Equatable {
    /// TMDb answered with this body (200, TMDb's JSON).
    case ok([UInt8])
    /// TMDb has no such resource (404, status code 34).
    case notFound
    /// Every try failed; why, with the token withheld.
    case failed(String)
}

/// Sends TMDb requests under the pacer: counts each call by kind, honours `Retry-After` for every
/// worker, retries transient failures with backoff, and never lets the token into a message or a
/// stored body.
package final class TMDbCaller: Sendable {
    let endpoint: TMDbEndpoint
    let transport: any HTTPRequestTransport
    let pacer: TMDbPacer
    let backoff: Backoff
    let time: TimeSource
    let logger: Logger
    /// Calls sent, by kind: since the caller was made, and since the last ``takeCalls()``.
    private let counts = Mutex(CallCounts())

    private struct CallCounts {
        var total: [String: Int] = [:]
        var untaken: [String: Int] = [:]
    }

    package init(
        endpoint: TMDbEndpoint, transport: any HTTPRequestTransport, pacer: TMDbPacer, backoff: Backoff,
        time: TimeSource, logger: Logger
    ) {
        self.endpoint = endpoint
        self.transport = transport
        self.pacer = pacer
        self.backoff = backoff
        self.time = time
        self.logger = logger
    }

    /// Calls sent so far, by kind.
    package var calls: [String: Int] { counts.withLock { counts in counts.total } }

    /// Takes the calls counted so far, leaving none: for writing them to the store.
    package func takeCalls() -> [String: Int] {
        counts.withLock { counts -> [String: Int] in
            let taken = counts.untaken
            counts.untaken = [:]
            return taken
        }
    }

    /// Longest `Retry-After` honoured; a longer one fails the request for this run.
    static let longestPause = Duration.seconds(600)

    /// GETs `path` with `query`, counted as a `kind` call. Throws `CancellationError` and
    /// ``TMDbStopped`` (the breaker, or a refused token).
    package func get(_ path: String, query: [(String, String)] = [], kind: String) async throws -> TMDbAnswer {
        let request = endpoint.request(path, query: query)
        var failures = 0
        var limited = 0
        while true {
            try await pacer.acquire()
            counts.withLock {
                $0.total[kind, default: 0] += 1
                $0.untaken[kind, default: 0] += 1
            }
            let outcome: Result<HTTPResponse, TransportFailure>
            do {
                outcome = .success(try await transport.send(request))
            } catch {
                outcome = .failure(error)
            }
            let why: String
            switch outcome {
            case .success(let response) where endpoint.token.isEchoed(in: response.body):
                why = "TMDb's answer to \(path) (HTTP \(response.status)) echoed the token; not kept"
            case .success(let response) where response.status == 200:
                guard Self.isJSONObject(response.body) else {
                    why = "TMDb's answer to \(path) is not JSON"
                    break
                }
                await pacer.recordSuccess()
                return .ok(response.body)
            case .success(let response) where response.status == 404:
                await pacer.recordSuccess()
                return .notFound
            case .success(let response) where response.status == 401:
                let message = TMDbBody.error(response.body).map { "\($0.message) (status code \($0.code))" }
                let text = "TMDb refused the token: \(message ?? "HTTP 401")"
                await pacer.stop(endpoint.token.redacting(text))
                throw TMDbStopped(reason: endpoint.token.redacting(text))
            case .success(let response) where response.status == 429:
                limited += 1
                let wait =
                    response.retryAfter.flatMap { RetryAfter(headerValue: $0)?.delay(relativeTo: time.now) }
                    ?? .seconds(1)
                guard wait <= Self.longestPause else {
                    // Waiting that long would hold every worker: TMDb's part stops, the rest resumes later.
                    let text =
                        "TMDb asked to wait \(DurationText.compact(wait)) (Retry-After); the rest resumes next run"
                    await pacer.stop(text)
                    throw TMDbStopped(reason: text)
                }
                guard limited <= 50 else { return .failed("TMDb kept answering 429 for \(path)") }
                await pacer.pause(for: max(wait, .milliseconds(1)))
                logger.debug("TMDb over its rate; every TMDb request waits", metadata: ["retry_after": "\(wait)"])
                continue
            case .success(let response):
                why = "TMDb answered \(path) with HTTP \(response.status)"
            case .failure(let failure):
                why = endpoint.token.redacting("\(path): \(failure)")
            }
            failures += 1
            await pacer.recordFailure()
            var random = SystemRandomNumberGenerator()
            switch backoff.decide(afterFailures: failures, using: &random) {
            case .giveUp:
                return .failed(why)
            case .retry(let wait):
                logger.debug("TMDb request failed; retrying", metadata: ["why": "\(why)"])
                try await time.sleep(for: wait)
            }
        }
    }

    /// Whether `body` starts as a JSON object (TMDb's answers all are).
    static func isJSONObject(_ body: [UInt8]) -> Bool {
        body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == UInt8(ascii: "{")
    }
}
