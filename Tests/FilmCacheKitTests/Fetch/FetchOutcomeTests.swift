import FilmCacheKit
import Foundation
import Testing

extension FetchPolicyTests {
    /// Classifying every OMDb status and message.
    @Suite("FetchOutcome")
    struct FetchOutcomeTests {
        /// One row of the classification table.
        struct Row: Sendable, CustomTestStringConvertible {
            var status: Int
            var body: FetchOutcome.Body
            var transport: TransportFailure?
            var retryAfter: String?
            var expected: FetchOutcome

            init(
                _ status: Int, _ body: FetchOutcome.Body, transport: TransportFailure? = nil, retryAfter: String? = nil,
                _ expected: FetchOutcome
            ) {
                self.status = status
                self.body = body
                self.transport = transport
                self.retryAfter = retryAfter
                self.expected = expected
            }

            var testDescription: String {
                "\(status) \(body)\(transport.map { " transport=\($0)" } ?? "")\(retryAfter.map { " retry-after=\($0)" } ?? "")"
            }
        }

        /// Every status and message OMDb is known to send, and a few it might.
        static let table: [Row] = [
            // Films.
            Row(200, .film, .film),
            Row(200, .film, retryAfter: "30", .film),
            // Permanent misses.
            Row(200, .error("Incorrect IMDb ID."), .notFound(message: "Incorrect IMDb ID.")),
            Row(200, .error("Movie not found!"), .notFound(message: "Movie not found!")),
            Row(200, .error("Series not found!"), .notFound(message: "Series not found!")),
            Row(200, .error("Series or episode not found!"), .notFound(message: "Series or episode not found!")),
            Row(200, .error(" movie NOT found! "), .notFound(message: " movie NOT found! ")),
            Row(404, .error("Movie not found!"), .notFound(message: "Movie not found!")),
            // The day's quota is spent.
            Row(401, .error("Request limit reached!"), .limitReached(message: "Request limit reached!")),
            Row(401, .error("Daily request limit reached!"), .limitReached(message: "Daily request limit reached!")),
            Row(200, .error("Request limit reached!"), .limitReached(message: "Request limit reached!")),
            Row(503, .error("REQUEST LIMIT REACHED"), .limitReached(message: "REQUEST LIMIT REACHED")),
            Row(429, .error("Request limit reached!"), .limitReached(message: "Request limit reached!")),
            Row(401, .malformed, .limitReached(message: "HTTP 401")),
            Row(401, .error("Unauthorized"), .limitReached(message: "Unauthorized")),
            Row(401, .film, .limitReached(message: "HTTP 401")),
            // Bad key.
            Row(401, .error("Invalid API key!"), .invalidKey(message: "Invalid API key!")),
            Row(401, .error("No API key provided."), .invalidKey(message: "No API key provided.")),
            Row(200, .error("Invalid API key!"), .invalidKey(message: "Invalid API key!")),
            // OMDb's own trouble.
            Row(200, .error("Error getting data."), .transient(.serviceError("Error getting data."), retryAfter: nil)),
            Row(
                200, .error("Something went wrong."),
                .transient(.serviceError("Something went wrong."), retryAfter: nil)),
            Row(
                200, .error("A message nobody has seen"),
                .transient(.serviceError("A message nobody has seen"), retryAfter: nil)),
            Row(200, .error(""), .transient(.serviceError(""), retryAfter: nil)),
            Row(200, .malformed, .transient(.malformedBody, retryAfter: nil)),
            Row(204, .malformed, .transient(.malformedBody, retryAfter: nil)),
            // Transient statuses, with and without Retry-After.
            Row(500, .malformed, .transient(.status(500), retryAfter: nil)),
            Row(502, .malformed, .transient(.status(502), retryAfter: nil)),
            Row(503, .malformed, .transient(.status(503), retryAfter: nil)),
            Row(504, .malformed, .transient(.status(504), retryAfter: nil)),
            Row(599, .malformed, .transient(.status(599), retryAfter: nil)),
            Row(503, .error("Something went wrong."), .transient(.status(503), retryAfter: nil)),
            Row(503, .error("Movie not found!"), .transient(.status(503), retryAfter: nil)),
            Row(429, .malformed, .transient(.status(429), retryAfter: nil)),
            Row(408, .malformed, .transient(.status(408), retryAfter: nil)),
            Row(429, .malformed, retryAfter: "120", .transient(.status(429), retryAfter: .delay(.seconds(120)))),
            Row(
                503, .malformed, retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT",
                .transient(.status(503), retryAfter: .date(TestDates.utc(2026, 10, 21, 7, 28, 0)))),
            Row(503, .malformed, retryAfter: "whenever", .transient(.status(503), retryAfter: nil)),
            Row(
                200, .error("Error getting data."), retryAfter: "5",
                .transient(.serviceError("Error getting data."), retryAfter: .delay(.seconds(5)))),
            // No complete answer.
            Row(0, .malformed, transport: .timeout, .transient(.transport(.timeout), retryAfter: nil)),
            Row(0, .malformed, transport: .connectionReset, .transient(.transport(.connectionReset), retryAfter: nil)),
            Row(
                0, .malformed, transport: .connectFailed("refused"),
                .transient(.transport(.connectFailed("refused")), retryAfter: nil)),
            Row(200, .malformed, transport: .truncated, .transient(.transport(.truncated), retryAfter: nil)),
            Row(200, .film, transport: .truncated, .transient(.transport(.truncated), retryAfter: nil)),
            Row(
                200, .malformed, transport: .bodyTooLarge(limit: 1024),
                .transient(.transport(.bodyTooLarge(limit: 1024)), retryAfter: nil)),
            Row(0, .malformed, transport: .other("SSL"), .transient(.transport(.other("SSL")), retryAfter: nil)),
            Row(
                401, .error("Request limit reached!"), transport: .timeout,
                .transient(.transport(.timeout), retryAfter: nil)),
            // Refused for good (an OMDb error body), or not an answer of OMDb's at all.
            Row(400, .malformed, .notOMDb(status: 400)),
            Row(403, .malformed, .notOMDb(status: 403)),
            Row(404, .malformed, .notOMDb(status: 404)),
            Row(400, .error("Something went wrong."), .rejected(status: 400, message: "Something went wrong.")),
            Row(301, .malformed, .notOMDb(status: 301)),
            Row(302, .film, .notOMDb(status: 302)),
            Row(404, .film, .notOMDb(status: 404)),
            Row(100, .malformed, .notOMDb(status: 100)),
        ]

        @Test("every OMDb message and status classifies as documented", arguments: table)
        func classify(row: Row) {
            let outcome = FetchOutcome.classify(
                status: row.status, body: row.body, transportFailure: row.transport, retryAfter: row.retryAfter)
            #expect(outcome == row.expected)
        }

        @Test(
            "every documented not-found message is a permanent miss", arguments: FetchOutcome.notFoundMessages.sorted())
        func notFoundMessages(message: String) {
            #expect(FetchOutcome.classify(status: 200, body: .error(message)) == .notFound(message: message))
        }

        @Test("a transport failure alone classifies as transient")
        func transportOnly() {
            #expect(
                FetchOutcome.classify(transportFailure: .timeout) == .transient(.transport(.timeout), retryAfter: nil))
        }

        @Test("the summary properties match the cases")
        func properties() {
            let transient = FetchOutcome.transient(.status(503), retryAfter: .delay(.seconds(9)))
            #expect(transient.isTransient)
            #expect(!transient.stopsRun)
            #expect(transient.retryAfter == .delay(.seconds(9)))
            #expect(FetchOutcome.limitReached(message: "x").stopsRun)
            #expect(FetchOutcome.invalidKey(message: "x").stopsRun)
            for outcome in [FetchOutcome.film, .notFound(message: "x"), .rejected(status: 400, message: nil)] {
                #expect(!outcome.stopsRun)
                #expect(!outcome.isTransient)
                #expect(outcome.retryAfter == nil)
            }
        }
    }
}
