import FilmCacheKit
import Foundation
import HummingbirdTesting
import Testing

/// A serve started again holds the films apps asked for most in memory before they are asked for.
@Suite struct ServeMemoryFillTests {
    static let ids = ["tt0133093", "tt0111161", "tt0068646"]

    private static func uri(_ id: String) -> String { "/?apikey=\(ServeFixture.token)&i=\(id)" }

    /// Asks for the films through the router, the first three times, the second twice, the third
    /// once, and writes the counts: the demand a serve left behind.
    private static func demandLeftBehind(_ fixture: ServeFixture) async throws {
        try await fixture.app.test(.router) { client in
            for (index, id) in ids.enumerated() {
                for _ in 0..<(ids.count - index) {
                    let response = try await client.execute(uri: uri(id), method: .get)
                    #expect(response.status == .ok)
                }
            }
        }
        await fixture.engine.demand.flush()
    }

    @Test func theMostRequestedFilmsAreHeldWithNoCall() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            try await Self.demandLeftBehind(fixture)
            let restarted = try fixture.restartedEngine()
            for id in Self.ids { #expect(restarted.memoHit(token: ServeFixture.token, imdbID: id) == nil) }
            #expect(await restarted.holdMostRequested(limit: 10) == 3)
            for id in Self.ids {
                let held = restarted.memoHit(token: ServeFixture.token, imdbID: id)
                #expect(held == fixture.engine.memoHit(token: ServeFixture.token, imdbID: id), "\(id)")
                #expect(held != nil, "\(id)")
            }
            #expect(upstream.requested.sorted() == Self.ids.sorted(), "each film asked once, before the restart")
        }
    }

    /// Most requested first, and no further than a limit, or than three quarters of memory: the
    /// films held first are not pushed out by the ones after them.
    @Test func mostRequestedFirstWithinTheLimitAndMemory() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            try await Self.demandLeftBehind(fixture)
            let limited = try fixture.restartedEngine()
            #expect(await limited.holdMostRequested(limit: 2) == 2)
            #expect(
                Self.ids.map { limited.memoHit(token: ServeFixture.token, imdbID: $0) != nil } == [true, true, false])
            // Room for one film: three quarters of it reached after the first.
            let body = try #require(fixture.engine.memoHit(token: ServeFixture.token, imdbID: Self.ids[0]))
            let small = try fixture.restartedEngine(memoryBytes: body.count * 6 / 5)
            #expect(await small.holdMostRequested(limit: 10) == 1)
            #expect(
                Self.ids.map { small.memoHit(token: ServeFixture.token, imdbID: $0) != nil } == [true, false, false])
        }
    }

    /// Nothing asked yet: nothing held, and nothing asked of OMDb.
    @Test func noDemandHoldsNothing() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            #expect(await fixture.engine.holdMostRequested(limit: 10) == 0)
            #expect(upstream.requested.isEmpty)
        }
    }
}
