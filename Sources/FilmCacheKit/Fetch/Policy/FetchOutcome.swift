import Foundation

/// What one OMDb request came to, and so what the fetch stage does next.
///
/// Built by ``classify(status:body:transportFailure:retryAfter:)`` from facts the transport and
/// the decoder already have, so it does not depend on how the JSON is decoded.
package enum FetchOutcome: Sendable, Hashable {
    /// OMDb returned a film (HTTP 2xx, `"Response":"True"`); store it.
    case film
    /// OMDb has no such film; a permanent miss to cache so it is not paid for again.
    case notFound(message: String)
    /// The key's requests for the quota day are spent; stop every fetch until the next quota day.
    case limitReached(message: String)
    /// The API key is missing or wrong; a configuration error that ends the run.
    case invalidKey(message: String)
    /// A failure worth retrying later, with the server's `Retry-After` if it sent one.
    case transient(TransientReason, retryAfter: RetryAfter?)
    /// The request was refused with an OMDb error body, in a way retrying will not fix (other
    /// 4xx); record it against the film and do not retry it this run.
    case rejected(status: Int, message: String?)
    /// An answer that is not OMDb's: a redirect, or a 1xx/3xx/4xx without OMDb's JSON error body
    /// (a block page, a proxy's 404). Never stored; it trips the circuit breaker, and a run of
    /// them ends the run as talking to something that is not OMDb.
    case notOMDb(status: Int)

    /// What the body of an HTTP answer turned out to be.
    public enum Body: Sendable, Hashable {
        /// A film body, `"Response":"True"`.
        case film
        /// An error body, `{"Response":"False","Error":"…"}`, carrying the `Error` text.
        case error(String)
        /// Empty, not JSON, or JSON of neither shape.
        case malformed
    }

    /// Why a failure is considered transient.
    package enum TransientReason: Sendable, Hashable {
        /// No complete HTTP answer.
        case transport(TransportFailure)
        /// HTTP 408, 429 or 5xx.
        case status(Int)
        /// A 2xx error body OMDb uses for its own trouble (`Error getting data.`,
        /// `Something went wrong.`) or a message not known to be permanent.
        case serviceError(String)
        /// A 2xx answer whose body could not be read as a film or an error.
        case malformedBody
    }

    /// OMDb's error messages for a film it does not have.
    package static let notFoundMessages: Set<String> = [
        "Incorrect IMDb ID.", "Movie not found!", "Series not found!", "Series or episode not found!",
        "Series or season not found!", "Too many results.",
    ]

    /// Classifies one request from its HTTP status, decoded body, transport failure and `Retry-After` header.
    ///
    /// A transport failure wins over everything else (the status and body are then partial).
    /// "limit reached" anywhere in an error body means the quota is spent whatever the status;
    /// an error body about the API key means a bad key; any other HTTP 401 is taken as the limit,
    /// the outcome that stops fetching without declaring the key bad.
    package static func classify(
        status: Int,
        body: Body,
        transportFailure: TransportFailure? = nil,
        retryAfter: String? = nil
    ) -> FetchOutcome {
        let retry = retryAfter.flatMap(RetryAfter.init(headerValue:))
        if let transportFailure {
            return .transient(.transport(transportFailure), retryAfter: retry)
        }
        var message: String?
        if case .error(let text) = body {
            message = text
            let folded = text.lowercased()
            if folded.contains("limit reached") { return .limitReached(message: text) }
            if folded.contains("api key") { return .invalidKey(message: text) }
        }
        if status == 401 {
            return .limitReached(message: message ?? "HTTP 401")
        }
        if status == 408 || status == 429 || (500...599).contains(status) {
            return .transient(.status(status), retryAfter: retry)
        }
        let answered = (200...299).contains(status) || (400...499).contains(status)
        if answered, let message, isNotFound(message) {
            return .notFound(message: message)
        }
        guard (200...299).contains(status) else {
            guard let message, (400...499).contains(status) else { return .notOMDb(status: status) }
            return .rejected(status: status, message: message)
        }
        switch body {
        case .film: return .film
        case .error(let text): return .transient(.serviceError(text), retryAfter: retry)
        case .malformed: return .transient(.malformedBody, retryAfter: retry)
        }
    }

    /// Classifies a request the transport could not complete.
    package static func classify(transportFailure: TransportFailure) -> FetchOutcome {
        .transient(.transport(transportFailure), retryAfter: nil)
    }

    /// Whether the film may be tried again later in this run.
    package var isTransient: Bool {
        if case .transient = self { return true }
        return false
    }

    /// Whether the whole run must stop fetching (quota spent or key unusable).
    package var stopsRun: Bool {
        switch self {
        case .limitReached, .invalidKey: return true
        case .film, .notFound, .transient, .rejected, .notOMDb: return false
        }
    }

    /// The server's `Retry-After`, for transient outcomes that carried one.
    package var retryAfter: RetryAfter? {
        if case .transient(_, let retryAfter) = self { return retryAfter }
        return nil
    }

    /// This outcome with `echo`'s secret cut out of every message it carries.
    func redacting(_ echo: SecretEcho) -> FetchOutcome {
        func clean(_ text: String) -> String { echo.redacting(text, replacement: SecretEcho.withheld) }
        switch self {
        case .notFound(let message): return .notFound(message: clean(message))
        case .limitReached(let message): return .limitReached(message: clean(message))
        case .invalidKey(let message): return .invalidKey(message: clean(message))
        case .rejected(let status, let message): return .rejected(status: status, message: message.map(clean))
        case .transient(.serviceError(let text), let retryAfter):
            return .transient(.serviceError(clean(text)), retryAfter: retryAfter)
        case .film, .transient, .notOMDb: return self
        }
    }

    private static func isNotFound(_ message: String) -> Bool {
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return notFoundMessagesFolded.contains(trimmed)
    }

    private static let notFoundMessagesFolded = Set(notFoundMessages.map { $0.lowercased() })
}
