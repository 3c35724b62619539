import Foundation
import OMDbStandIn
import Testing

/// Injected faults, their seeded sequence, and runtime changes.
@Suite struct FaultTests {
    /// The film every fault test requests.
    static let film = StandInHarness.firstFilm(of: .movie)

    /// A behaviour that faults every request with `kind`.
    static func alwaysFailing(_ kind: FaultKind) -> StandInBehaviour {
        StandInBehaviour(faultRate: 1, faults: [kind])
    }

    /// Status faults answer with their status (and `Retry-After` where named) and keep the connection.
    @Test(
        arguments: [
            (FaultKind.internalServerError, 500, nil), (.serviceUnavailable, 503, nil), (.tooManyRequests, 429, nil),
            (.tooManyRequestsRetryAfter, 429, "1"), (.serviceUnavailableRetryAfter, 503, "1"),
        ] as [(FaultKind, Int, String?)])
    func statusFaultsAnswerWithTheirStatusAndKeepTheConnection(kind: FaultKind, status: Int, retryAfter: String?)
        throws
    {
        try StandInHarness.withServer(behaviour: Self.alwaysFailing(kind)) { server, port in
            let connection = try RawHTTPConnection(port: port)
            for _ in 0..<3 {
                let response = try connection.get("/?apikey=demo&i=\(Self.film.imdbID)")
                #expect(response.status == status)
                #expect(response.headers["retry-after"] == retryAfter)
            }
            #expect(server.stats().connectionsAccepted == 1)
            #expect(server.counters(forKey: "demo")?.faults == 3)
            #expect(server.stats().faultsByKind == [kind.rawValue: 3])
        }
    }

    /// `reset` closes the connection without answering.
    @Test func resetClosesWithoutAnswering() throws {
        try StandInHarness.withServer(behaviour: Self.alwaysFailing(.reset)) { server, port in
            let connection = try RawHTTPConnection(port: port)
            #expect(throws: RawHTTPError.self) { try connection.get("/?apikey=demo&i=\(Self.film.imdbID)") }
            #expect(server.requestCount(forKey: "demo") == 1)
        }
    }

    /// `truncate` announces the full length, sends half the body, and closes.
    @Test func truncateSendsHalfTheDeclaredBodyThenCloses() throws {
        try StandInHarness.withServer(behaviour: Self.alwaysFailing(.truncate)) { _, port in
            let connection = try RawHTTPConnection(port: port)
            let response = try connection.get("/?apikey=demo&i=\(Self.film.imdbID)")
            #expect(response.status == 200)
            #expect(response.declaredLength == Self.film.body.count)
            #expect(response.body == Array(Self.film.body.prefix(Self.film.body.count / 2)))
            #expect(connection.peerClosed())
        }
    }

    /// `malformed` answers 200 with JSON that does not parse.
    @Test func malformedAnswers200WithJSONThatDoesNotParse() throws {
        try StandInHarness.withServer(behaviour: Self.alwaysFailing(.malformed)) { _, port in
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo&i=\(Self.film.imdbID)")
            #expect(response.status == 200)
            #expect(response.declaredLength == response.body.count)
            #expect((try? JSONSerialization.jsonObject(with: Data(response.body))) == nil)
        }
    }

    /// `error-getting-data` answers OMDb's transient error.
    @Test func errorGettingDataAnswersOMDbsTransientError() throws {
        try StandInHarness.withServer(behaviour: Self.alwaysFailing(.errorGettingData)) { _, port in
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo&i=\(Self.film.imdbID)")
            #expect(response.status == 200)
            #expect(response.text == #"{"Response":"False","Error":"Error getting data."}"#)
        }
    }

    /// A fractional fault rate is seeded: the same seed repeats the same faults.
    @Test func faultFractionIsSeededAndRepeatable() throws {
        let behaviour = StandInBehaviour(faultRate: 0.3, faults: [.internalServerError, .serviceUnavailable], seed: 42)
        func statuses() throws -> [Int] {
            try StandInHarness.withServer(behaviour: behaviour) { _, port in
                let connection = try RawHTTPConnection(port: port)
                return try (0..<400).map { _ in try connection.get("/?apikey=demo&i=\(Self.film.imdbID)").status }
            }
        }
        let first = try statuses()
        #expect(try statuses() == first)
        let faulted = first.filter { $0 != 200 }.count
        #expect((80...160).contains(faulted))
        #expect(first.contains(500) && first.contains(503))
    }

    /// `POST /__standin/faults` changes faults while running and rejects bad values.
    @Test func faultsCanBeChangedAtRuntime() throws {
        try StandInHarness.withServer { server, port in
            let connection = try RawHTTPConnection(port: port)
            #expect(try connection.get("/?apikey=demo&i=\(Self.film.imdbID)").status == 200)
            let change = try connection.get(
                "/__standin/faults?fault-rate=1&faults=503-retry-after&limit-after=none&latency-ms=0", method: "POST")
            #expect(change.status == 200)
            #expect(server.behaviour.faults == [.serviceUnavailableRetryAfter])
            #expect(try connection.get("/?apikey=demo&i=\(Self.film.imdbID)").status == 503)
            #expect(try connection.get("/__standin/faults?fault-rate=2", method: "POST").status == 400)
            #expect(try connection.get("/__standin/faults?faults=teapot", method: "POST").status == 400)
            _ = try connection.get("/__standin/faults?fault-rate=0", method: "POST")
            #expect(try connection.get("/?apikey=demo&i=\(Self.film.imdbID)").status == 200)
            #expect(server.requestCount(forKey: "demo") == 3)
        }
    }

    /// `latency-ms` delays OMDb answers.
    @Test func latencyDelaysOMDbAnswers() throws {
        try StandInHarness.withServer(behaviour: StandInBehaviour(latencyMilliseconds: 150)) { _, port in
            let connection = try RawHTTPConnection(port: port)
            let start = Date()
            #expect(try connection.get("/?apikey=demo&i=\(Self.film.imdbID)").status == 200)
            #expect(Date().timeIntervalSince(start) >= 0.14)
        }
    }

    /// Fault lists parse, deduplicate, accept `all`, and reject unknown names.
    @Test func faultListParsing() throws {
        #expect(
            try FaultKind.parseList("500, reset,500,429-retry-after") == [
                .internalServerError, .reset, .tooManyRequestsRetryAfter,
            ])
        #expect(try FaultKind.parseList("all") == FaultKind.transientKinds)
        #expect(try FaultKind.parseList("") == [])
        #expect(throws: FaultListError.self) { try FaultKind.parseList("500,teapot") }
    }
}
