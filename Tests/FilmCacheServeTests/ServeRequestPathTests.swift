import FilmCacheTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import FilmCacheKit

/// The request path of `filmcache serve`, in process: routes driven by HummingbirdTesting over a
/// real SQLite cache, OMDb scripted behind the transport seam.
@Suite struct ServeRequestPathTests {
    static let id = "tt0133093"
    static let cache = HTTPField.Name("X-Cache")!

    private static func uri(_ query: String, token: String = ServeFixture.token) -> String {
        "/?apikey=\(token)&\(query)"
    }

    @Test func aFilmFoundIsAnsweredWithOMDbsBodyAndStored() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id, title: "The Matrix") }
        try await ServeFixture.with(upstream) { fixture in
            try await fixture.app.test(.router) { client in
                let response = try await client.execute(uri: Self.uri("i=\(Self.id)"), method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                let body = try JSONSerialization.jsonObject(with: Data(String(buffer: response.body).utf8))
                #expect((body as? [String: String])?["Title"] == "The Matrix")
                #expect((body as? [String: String])?["imdbID"] == Self.id)
                #expect(response.headers[Self.cache] == "miss")
            }
            #expect(try await fixture.store.film(Self.id)?.title == "The Matrix")
        }
    }

    @Test func aFilmNotFoundIsOMDbsNegativeAnswerAndIsNotAskedAgain() async throws {
        let upstream = ScriptedUpstream { _, _ in ScriptedUpstream.error(200, "Incorrect IMDb ID.") }
        try await ServeFixture.with(upstream) { fixture in
            try await fixture.app.test(.router) { client in
                for outcome in ["miss", "hit"] {
                    let response = try await client.execute(uri: Self.uri("i=tt9999999"), method: .get)
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == #"{"Response":"False","Error":"Incorrect IMDb ID."}"#)
                    #expect(response.headers[Self.cache] == outcome)
                }
            }
        }
        #expect(upstream.requested == ["tt9999999"])
    }

    @Test func aFilmIsReadThroughOnceThenAnsweredFromTheCache() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            try await fixture.app.test(.router) { client in
                let first = try await client.execute(uri: Self.uri("i=\(Self.id)"), method: .get)
                let second = try await client.execute(uri: Self.uri("i=\(Self.id)"), method: .get)
                #expect(first.headers[Self.cache] == "miss")
                #expect(second.headers[Self.cache] == "hit")
                #expect(first.body == second.body)
            }
            #expect(upstream.requested == [Self.id])
            // Both requests count toward the film's demand, which the flusher writes.
            await fixture.engine.demand.flush()
            #expect(try await fixture.store.demand(of: [Self.id]) == [Self.id: 2])
        }
    }

    @Test func twoRequestsAtOnceMakeOneUpstreamCall() async throws {
        let hold = Latch()
        let upstream = ScriptedUpstream(hold: hold) { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            let engine = fixture.engine
            try await fixture.app.test(.router) { client in
                defer { hold.open() }
                async let first = client.execute(uri: Self.uri("i=\(Self.id)"), method: .get)
                async let second = client.execute(uri: Self.uri("i=\(Self.id)"), method: .get)
                // Both requests are in (counted) while the one call is held at OMDb.
                let bothIn = await eventually {
                    upstream.requested.count == 1 && engine.demand.pending[Self.id] == 2
                }
                #expect(bothIn)
                hold.open()
                let (a, b) = try await (first, second)
                #expect(a.status == .ok && b.status == .ok)
                #expect(a.body == b.body)
            }
        }
        #expect(upstream.requested == [Self.id])
    }

    @Test func aStaleFilmIsServedWhenOMDbFails() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            try await fixture.app.test(.router) { client in
                let fresh = try await client.execute(uri: Self.uri("i=\(Self.id)"), method: .get)
                #expect(fresh.status == .ok)
                upstream.answer { _, _ in ScriptedUpstream.error(503, "Service Unavailable") }
                fixture.wall.advance(by: 400 * 86_400)
                let stale = try await client.execute(uri: Self.uri("i=\(Self.id)"), method: .get)
                #expect(stale.status == .ok)
                #expect(stale.body == fresh.body)
                #expect(stale.headers[Self.cache] == "stale")
                #expect(stale.headers[HTTPField.Name("Warning")!] == #"110 - "Response is Stale""#)
                #expect(stale.headers[.age] == "\(400 * 86_400)")
            }
        }
        #expect(upstream.requested == [Self.id, Self.id])
    }

    @Test(arguments: [("wrong-token", "Invalid API key!"), ("", "No API key provided.")])
    func aBadClientTokenIsRefusedWithoutAskingOMDb(token: String, message: String) async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            try await fixture.app.test(.router) { client in
                let response = try await client.execute(uri: Self.uri("i=\(Self.id)", token: token), method: .get)
                #expect(response.status == .unauthorized)
                #expect(String(buffer: response.body) == #"{"Response":"False","Error":"\#(message)"}"#)
            }
        }
        #expect(upstream.requested.isEmpty)
    }
}
