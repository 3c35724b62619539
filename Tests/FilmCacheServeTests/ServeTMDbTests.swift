import FilmCacheTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import FilmCacheKit

/// `filmcache serve` answering TMDb's paths, in process: routes driven by HummingbirdTesting over
/// the memory backend, TMDb scripted behind the transport seam.
@Suite struct ServeTMDbTests {
    static let cache = HTTPField.Name("X-Cache")!
    static let token = TMDbServeFixture.token
    static let secret = TMDbServeFixture.secret
    /// TMDb's body for Fight Club, with what a re-encoding would change: spacing, key order,
    /// escapes and characters beyond ASCII.
    static let fightClub =
        #"{"adult":false,"id":550,"imdb_id":"tt0137523","title":"Fight Club", "tagline":"Mischief. Mayhem. Soap.","#
        + #""original_language":"en","overview":"A ticking-time-bomb insomniac\u2026 Tyler Durden","#
        + #""production_countries":[{"name":"Deutschland — Ünited"}],"vote_average":8.438}"#
    static let find =
        #"{"movie_results":[{"id":550,"title":"Fight Club","media_type":"movie"}],"person_results":[],"#
        + #""tv_results":[],"tv_episode_results":[],"tv_season_results":[]}"#
    static let invalidKey =
        #"{"status_code":7,"status_message":"Invalid API key: You must be granted a valid key.","success":false}"#
    static let notFound =
        #"{"success":false,"status_code":34,"status_message":"The resource you requested could not be found."}"#

    private static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    @Test func aMovieMissIsAskedOnceWithTheCachesTokenThenServedFromTheCache() async throws {
        let upstream = ScriptedTMDb { _, _ in ScriptedTMDb.ok(Self.fightClub) }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            let first = try await client.execute(uri: "/3/movie/550?api_key=\(Self.token)", method: .get)
            #expect(first.status == .ok)
            #expect(Array(first.body.readableBytesView) == Array(Self.fightClub.utf8))
            #expect(first.headers[.contentType] == "application/json;charset=utf-8")
            #expect(first.headers[Self.cache] == "miss")
            let second = try await client.execute(uri: "/3/movie/550?api_key=\(Self.token)", method: .get)
            #expect(second.status == .ok)
            #expect(Array(second.body.readableBytesView) == Array(Self.fightClub.utf8))
            #expect(second.headers[Self.cache] == "hit")
        }
        let requests = upstream.requests
        #expect(requests.count == 1)
        #expect(requests.first?.url == "http://tmdb.invalid/3/movie/550")
        #expect(requests.first?.headers.contains("Authorization: Bearer \(Self.secret)") == true)
        #expect(!requests.contains { $0.url.contains(Self.token) || $0.headers.joined().contains(Self.token) })
        // Every call is counted, by UTC day, as serve's.
        #expect(try await fixture.store.tmdbCalls(since: "2000-01-01").values.map { $0["serve"] } == [1])
    }

    @Test func findByIMDbIDIsReadThroughOnce() async throws {
        let upstream = ScriptedTMDb { path, _ in
            path == "/3/find/tt0137523" ? ScriptedTMDb.ok(Self.find) : ScriptedTMDb.error(404, code: 34, "no")
        }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            for outcome in ["miss", "hit"] {
                let response = try await client.execute(
                    uri: "/3/find/tt0137523?external_source=imdb_id&api_key=\(Self.token)", method: .get)
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == Self.find)
                #expect(response.headers[Self.cache] == outcome)
            }
        }
        #expect(upstream.requests.map(\.url) == ["http://tmdb.invalid/3/find/tt0137523?external_source=imdb_id"])
    }

    @Test(arguments: [
        ("/3/configuration?api_key=\(TMDbServeFixture.token)", nil as String?, true),
        ("/3/configuration", "Bearer \(TMDbServeFixture.token)", true),
        ("/3/configuration", "bearer \(TMDbServeFixture.token)", true),
        ("/3/configuration?api_key=wrong-token", nil, false),
        ("/3/configuration", "Bearer wrong-token", false),
        ("/3/configuration", nil, false),
        ("/3/configuration?api_key=", nil, false),
        // The cache's own TMDb token is no client token.
        ("/3/configuration", "Bearer \(TMDbServeFixture.secret)", false),
    ])
    func theClientTokenComesAsAPIKeyOrBearer(uri: String, authorization: String?, accepted: Bool) async throws {
        let upstream = ScriptedTMDb { _, _ in ScriptedTMDb.ok(#"{"images":{"base_url":"http://image.tmdb.org/t/p/"}}"#)
        }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            let headers: HTTPFields = authorization.map { [.authorization: $0] } ?? [:]
            let response = try await client.execute(uri: uri, method: .get, headers: headers)
            if accepted {
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).hasPrefix(#"{"images""#))
            } else {
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body) == Self.invalidKey)
                #expect(response.headers[.contentType] == "application/json;charset=utf-8")
            }
        }
        #expect(upstream.requests.count == (accepted ? 1 : 0))
    }

    @Test func theClientsTokenIsNeitherPartOfTheKeyNorSentOn() async throws {
        let upstream = ScriptedTMDb { _, _ in ScriptedTMDb.ok(Self.fightClub) }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            let first = try await client.execute(
                uri: "/3/movie/550?language=en-US&api_key=\(Self.token)&append_to_response=credits", method: .get)
            #expect(first.headers[Self.cache] == "miss")
            // The same query in another order, the token as Bearer: the same stored answer.
            let second = try await client.execute(
                uri: "/3/movie/550?append_to_response=credits&language=en-US", method: .get,
                headers: Self.bearer(Self.token))
            #expect(second.headers[Self.cache] == "hit")
            #expect(second.body == first.body)
        }
        #expect(
            Array(await fixture.store.answers.keys) == ["tmdb /3/movie/550?append_to_response=credits&language=en-US"])
        #expect(
            upstream.requests.map(\.url) == [
                "http://tmdb.invalid/3/movie/550?append_to_response=credits&language=en-US"
            ])
    }

    @Test func fiveRequestsAtOnceMakeOneUpstreamCall() async throws {
        let hold = Latch()
        let upstream = ScriptedTMDb(hold: hold) { _, _ in ScriptedTMDb.ok(Self.fightClub) }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            defer { hold.open() }
            try await withThrowingTaskGroup(of: (Int, String?, [UInt8]).self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        let response = try await client.execute(
                            uri: "/3/tv/1399?append_to_response=external_ids", method: .get,
                            headers: Self.bearer(Self.token))
                        return (
                            response.status.code, response.headers[Self.cache], Array(response.body.readableBytesView)
                        )
                    }
                }
                // The one call is held at TMDb while the requests come in.
                #expect(await eventually { upstream.requests.count == 1 })
                hold.open()
                var answers: [(Int, String?, [UInt8])] = []
                for try await answer in group { answers.append(answer) }
                #expect(answers.count == 5)
                #expect(answers.allSatisfy { $0.0 == 200 && $0.2 == Array(Self.fightClub.utf8) })
                #expect(answers.contains { $0.1 == "miss" })
            }
        }
        #expect(upstream.requests.count == 1)
    }

    @Test func aRequestPastItsDeadlineGets503AndTheCallStoresItsAnswerForTheNext() async throws {
        let hold = Latch()
        let upstream = ScriptedTMDb(hold: hold) { _, _ in ScriptedTMDb.ok(Self.fightClub) }
        // A deadline already passed: the request never waits for the held call.
        let fixture = try await TMDbServeFixture.make(upstream: upstream, deadline: .zero)
        try await fixture.app.test(.router) { client in
            defer { hold.open() }
            let late = try await client.execute(uri: "/3/movie/550?api_key=\(Self.token)", method: .get)
            #expect(late.status == .serviceUnavailable)
            #expect(late.headers[.retryAfter] == "1")
            #expect(String(buffer: late.body).hasPrefix(#"{"success":false,"status_code":9,"#))
            hold.open()
            // The call went on and stores TMDb's answer: the next request finds it.
            #expect(await fixture.waitForAnswer("tmdb /3/movie/550"))
            let next = try await client.execute(uri: "/3/movie/550?api_key=\(Self.token)", method: .get)
            #expect(next.status == .ok)
            #expect(next.headers[Self.cache] == "hit")
        }
        #expect(upstream.requests.count == 1)
    }

    @Test func anExpiredAnswerIsServedStaleWhenTMDbFails() async throws {
        let upstream = ScriptedTMDb { _, _ in ScriptedTMDb.ok(Self.fightClub) }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            let fresh = try await client.execute(uri: "/3/movie/550?api_key=\(Self.token)", method: .get)
            #expect(fresh.headers[Self.cache] == "miss")
            upstream.answer { _, _ in ScriptedTMDb.error(500, code: 11, "Internal error") }
            let ttl = Setting.answerTTLHours.default * 3_600
            fixture.wall.advance(by: ttl + 60)
            let stale = try await client.execute(uri: "/3/movie/550?api_key=\(Self.token)", method: .get)
            #expect(stale.status == .ok)
            #expect(stale.body == fresh.body)
            #expect(stale.headers[Self.cache] == "stale")
            #expect(stale.headers[HTTPField.Name("Warning")!] == #"110 - "Response is Stale""#)
            #expect(stale.headers[.age] == "\(Int(ttl) + 60)")
            #expect(stale.headers[.contentType] == "application/json;charset=utf-8")
            // With nothing stored, the failure is TMDb-shaped.
            let miss = try await client.execute(uri: "/3/movie/551?api_key=\(Self.token)", method: .get)
            #expect(miss.status == .serviceUnavailable)
            #expect(String(buffer: miss.body).hasPrefix(#"{"success":false,"status_code":"#))
        }
        #expect(upstream.requests.map(\.url).filter { $0.hasSuffix("/550") }.count == 2)
    }

    @Test func tmdbsNotFoundIsStoredAsANegativeAnswerAndServed() async throws {
        let upstream = ScriptedTMDb { _, _ in
            ScriptedTMDb.error(404, code: 34, "The resource you requested could not be found.")
        }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            for outcome in ["miss", "hit"] {
                let response = try await client.execute(uri: "/3/movie/99999999?api_key=\(Self.token)", method: .get)
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body) == Self.notFound)
                #expect(response.headers[Self.cache] == outcome)
            }
        }
        #expect(upstream.requests.count == 1)
        let stored = await fixture.store.answers["tmdb /3/movie/99999999"]
        #expect(stored?.found == false)
        #expect(stored?.body == Array(Self.notFound.utf8))
    }

    @Test func tmdbs429WithNothingStoredIs429WithRetryAfterAndHoldsEveryCall() async throws {
        let upstream = ScriptedTMDb { _, _ in
            ScriptedTMDb.error(
                429, code: 25, "Your request count (41) is over the allowed limit of 40.", retryAfter: "30")
        }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            for path in ["/3/movie/550", "/3/tv/1399"] {
                let response = try await client.execute(uri: "\(path)?api_key=\(Self.token)", method: .get)
                #expect(response.status == .tooManyRequests)
                #expect(String(buffer: response.body).hasPrefix(#"{"success":false,"status_code":25,"#))
                #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 > 0)
                #expect(Int(response.headers[.retryAfter] ?? "") ?? 99 <= 30)
            }
        }
        // The second request came inside TMDb's Retry-After: not sent.
        #expect(upstream.requests.count == 1)
    }

    @Test func tmdbRefusingTheCachesTokenIs503WithoutTheToken() async throws {
        let upstream = ScriptedTMDb { _, _ in
            ScriptedTMDb.error(401, code: 7, "Invalid API key: You must be granted a valid key.")
        }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            for path in ["/3/movie/550", "/3/movie/551"] {
                let response = try await client.execute(uri: "\(path)?api_key=\(Self.token)", method: .get)
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body).contains("cannot reach TMDb"))
            }
        }
        // Once refused, TMDb is not asked again.
        #expect(upstream.requests.count == 1)
    }

    @Test func withoutATMDbTokenTheCacheAnswersWhatItHoldsOnly() async throws {
        let upstream = ScriptedTMDb { _, _ in ScriptedTMDb.ok(Self.fightClub) }
        let fixture = try await TMDbServeFixture.make(upstream: upstream, withToken: false)
        try await fixture.store.storeAnswers([
            CachedAnswer(
                query: "tmdb /3/movie/550", body: Array(Self.fightClub.utf8), found: true,
                answeredAt: fixture.wall.wall.now())
        ])
        try await fixture.app.test(.router) { client in
            let held = try await client.execute(uri: "/3/movie/550?api_key=\(Self.token)", method: .get)
            #expect(held.status == .ok)
            #expect(held.headers[Self.cache] == "hit")
            let missing = try await client.execute(uri: "/3/movie/551?api_key=\(Self.token)", method: .get)
            #expect(missing.status == .serviceUnavailable)
            #expect(String(buffer: missing.body).contains("cache has no TMDb token"))
        }
        #expect(upstream.requests.isEmpty)
    }

    @Test(arguments: ["/3/person/1", "/3/movie/abc", "/3/movie/550/credits", "/3/discover/movie", "/3/", "/3"])
    func anUnknownPathIsTMDbsNotFound(path: String) async throws {
        let upstream = ScriptedTMDb { _, _ in ScriptedTMDb.ok(Self.fightClub) }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        try await fixture.app.test(.router) { client in
            let response = try await client.execute(uri: "\(path)?api_key=\(Self.token)", method: .get)
            #expect(response.status == .notFound)
            #expect(String(buffer: response.body) == Self.notFound)
        }
        #expect(upstream.requests.isEmpty)
    }

    @Test func theCachesTMDbTokenIsInNoAnswerHeaderOrStoredAnswer() async throws {
        let upstream = ScriptedTMDb { path, _ in
            switch path {
            case "/3/movie/550": ScriptedTMDb.ok(Self.fightClub)
            case "/3/movie/404": ScriptedTMDb.error(404, code: 34, "The resource you requested could not be found.")
            // An answer that echoes the request (the token with it) is never stored nor sent on.
            case "/3/movie/666": ScriptedTMDb.ok(#"{"id":666,"echo":"Bearer \#(Self.secret)"}"#)
            case "/3/movie/500": ScriptedTMDb.error(500, code: 11, "Internal error: \(Self.secret)")
            case "/3/tv/2": .failure(.other("connection refused by tmdb.invalid"))
            default: ScriptedTMDb.error(429, code: 25, "over the limit", retryAfter: "2")
            }
        }
        let fixture = try await TMDbServeFixture.make(upstream: upstream)
        let seen = Mutex<[String]>([])
        try await fixture.app.test(.router) { client in
            for path in ["/3/movie/550", "/3/movie/404", "/3/movie/666", "/3/movie/500", "/3/tv/2", "/3/tv/1"] {
                let response = try await client.execute(uri: "\(path)?api_key=\(Self.token)", method: .get)
                seen.withLock {
                    $0.append(String(buffer: response.body))
                    $0 += response.headers.map { "\($0.name): \($0.value)" }
                }
            }
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            seen.withLock { $0.append(String(buffer: metrics.body)) }
            #expect(String(buffer: metrics.body).contains("filmcache_serve_tmdb_requests_total"))
        }
        let said = seen.withLock { $0 }
        #expect(said.count > 6)
        #expect(!said.contains { $0.contains(Self.secret) })
        let answers = await fixture.store.answers
        #expect(answers.keys.sorted() == ["tmdb /3/movie/404", "tmdb /3/movie/550"])
        #expect(!answers.values.contains { String(decoding: $0.body, as: UTF8.self).contains(Self.secret) })
    }
}
