import Foundation
import OMDbStandIn
import Testing

/// Daily limits, limit-after, reset, and request counting.
@Suite struct QuotaTests {
    /// The daily limit serves exactly N films, then 401 `Request limit reached!`
    @Test(arguments: [1, 5, 12])
    func dailyLimitServesExactlyNThenRequestLimitReached(limit: Int) throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer(behaviour: StandInBehaviour(dailyLimit: limit)) { server, port in
            let connection = try RawHTTPConnection(port: port)
            var served = 0
            for _ in 0..<(limit + 3) {
                let response = try connection.get("/?apikey=demo&i=\(film.imdbID)")
                if response.status == 200 {
                    #expect(response.body == film.body)
                    served += 1
                } else {
                    #expect(response.status == 401)
                    #expect(response.text == #"{"Response":"False","Error":"Request limit reached!"}"#)
                }
            }
            #expect(served == limit)
            let counters = try #require(server.counters(forKey: "demo"))
            #expect(counters.requests == limit + 3)
            #expect(counters.films == limit)
            #expect(counters.limitReached == 3)
        }
    }

    /// A film served again for the same `i=` to the same key is counted: a cache's wasted call.
    @Test func aFilmServedAgainToTheSameKeyIsCounted() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer(keys: ["alpha-key", "beta-key"]) { server, port in
            let connection = try RawHTTPConnection(port: port)
            for key in ["alpha-key", "alpha-key", "beta-key", "alpha-key"] {
                #expect(try connection.get("/?apikey=\(key)&i=\(film.imdbID)").status == 200)
            }
            #expect(try connection.get("/?apikey=beta-key&i=tt0000000").status == 200)
            #expect(try #require(server.counters(forKey: "alpha-key")).filmsServedAgain == 2)
            #expect(try #require(server.counters(forKey: "beta-key")).filmsServedAgain == 0)
        }
    }

    /// Daily limit is per key.
    @Test func dailyLimitIsPerKey() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer(keys: ["alpha-key", "beta-key"], behaviour: StandInBehaviour(dailyLimit: 2)) {
            _, port in
            let connection = try RawHTTPConnection(port: port)
            let statuses = try ["alpha-key", "alpha-key", "alpha-key", "beta-key", "beta-key", "beta-key"].map {
                try connection.get("/?apikey=\($0)&i=\(film.imdbID)").status
            }
            #expect(statuses == [200, 200, 401, 200, 200, 401])
        }
    }

    /// The reset endpoint starts a new quota day.
    @Test func resetEndpointStartsANewQuotaDay() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer(behaviour: StandInBehaviour(dailyLimit: 1)) { server, port in
            let connection = try RawHTTPConnection(port: port)
            #expect(try connection.get("/?apikey=demo&i=\(film.imdbID)").status == 200)
            #expect(try connection.get("/?apikey=demo&i=\(film.imdbID)").status == 401)
            let reset = try connection.get("/__standin/reset", method: "POST")
            #expect(reset.status == 200)
            #expect(server.stats().totalRequests == 0)
            #expect(try connection.get("/?apikey=demo&i=\(film.imdbID)").status == 200)
            #expect(server.requestCount(forKey: "demo") == 1)
        }
    }

    /// Limit after cuts every key off mid run.
    @Test func limitAfterCutsEveryKeyOffMidRun() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer(keys: ["alpha-key", "beta-key"], behaviour: StandInBehaviour(limitAfter: 3)) {
            server, port in
            let connection = try RawHTTPConnection(port: port)
            let statuses = try ["alpha-key", "beta-key", "alpha-key", "beta-key", "alpha-key"].map {
                try connection.get("/?apikey=\($0)&i=\(film.imdbID)").status
            }
            #expect(statuses == [200, 200, 200, 401, 401])
            #expect(server.stats().keys.map(\.counters.limitReached) == [1, 1])
        }
    }

    /// Counts match the requests sent.
    @Test func countsMatchTheRequestsSent() throws {
        let films = StandInHarness.films.prefix(10)
        try StandInHarness.withServer(keys: ["alpha-key", "beta-key"]) { server, port in
            let connection = try RawHTTPConnection(port: port)
            for film in films { _ = try connection.get("/?apikey=alpha-key&i=\(film.imdbID)") }
            for _ in 0..<4 { _ = try connection.get("/?apikey=beta-key&i=tt0000002") }
            _ = try connection.get("/?apikey=nope&i=tt0000002")
            _ = try connection.get("/?i=tt0000002")
            _ = try connection.get("/__standin/stats")

            let stats = server.stats()
            #expect(stats.totalRequests == 16)
            #expect(stats.controlRequests == 1)
            #expect(stats.keys[0].counters.requests == 10)
            #expect(stats.keys[0].counters.films == 10)
            #expect(stats.keys[1].counters.notFound == 4)
            #expect(stats.keys[1].usedToday == 4)
            #expect(stats.unaccepted.requests == 2)
            #expect(server.requestCount(forKey: "alpha-key") == 10)
            #expect(server.requestCount(forKey: "nope") == 0)
        }
    }

    /// Stats endpoint matches the library and never shows keys.
    @Test func statsEndpointMatchesTheLibraryAndNeverShowsKeys() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer(keys: ["super-secret-key-123"]) { server, port in
            let connection = try RawHTTPConnection(port: port)
            _ = try connection.get("/?apikey=super-secret-key-123&i=\(film.imdbID)")
            let response = try connection.get("/__standin/stats")
            #expect(response.status == 200)
            #expect(!response.text.contains("secret"))
            let decoded = try JSONDecoder().decode(StandInStats.self, from: Data(response.body))
            #expect(decoded == server.stats())
            #expect(decoded.totalRequests == 1)
            #expect(decoded.keys[0].fingerprint == "su…(20)")
        }
    }
}
