import Foundation
import Testing

@testable import FilmCacheKit

/// TMDb's part of a warm in process: the scripted TMDb as upstream, the memory backend as the cache.
@Suite struct TMDbWarmJobTests {
    let day: TimeInterval = 86_400
    let start = Date(timeIntervalSince1970: 1_795_000_000)
    static let token = "eyJhbGciOiJIUzI1NiJ9.test-token.sig"

    func tmdb() throws -> ScriptedTMDb {
        let tmdb = ScriptedTMDb()
        tmdb.route("/find/tt0133093", body: try TMDbFixtures.body("find-tt0133093"))
        tmdb.route("/find/tt0903747", body: try TMDbFixtures.body("find-tt0903747"))
        tmdb.route("/movie/603", body: try TMDbFixtures.body("movie-603-append"))
        tmdb.route("/tv/1396", body: try TMDbFixtures.body("tv-1396-append"))
        return tmdb
    }

    func job(_ store: MemoryBackend, _ tmdb: ScriptedTMDb, at now: Date) throws -> TMDbWarmJob {
        var configuration = TMDbWarmConfiguration(
            endpoint: try TMDbEndpoint(baseURL: "http://127.0.0.1:9/3", token: TMDbToken(Self.token)!))
        configuration.rate = 0
        return TMDbWarmJob(
            configuration: configuration, store: store, transport: tmdb,
            time: TimeSource(clock: ManualClock(), wall: .fixed(now)), logger: SampleFilms.logger)
    }

    let ids = ["tt0133093", "tt0903747", "tt9999991", "tt0133093"]

    @Test func aWarmResolvesEachIDOnceFetchesDetailsInOneCallAndTheNextSpendsNothing() async throws {
        let store = MemoryBackend(wall: .fixed(start))
        let tmdb = try tmdb()
        let first = try await job(store, tmdb, at: start).run(imdbIDs: ids)
        #expect(first.considered == 3 && first.resolved == 3 && first.notOnTMDb == 1 && first.fetched == 2)
        #expect(first.calls == ["find": 3, "details": 2] && first.feed == "first-run" && first.failed == 0)
        #expect(
            tmdb.paths.sorted() == ["/find/tt0133093", "/find/tt0903747", "/find/tt9999991", "/movie/603", "/tv/1396"])
        for request in tmdb.requests {
            #expect(request.headers.contains("Authorization: Bearer \(Self.token)"))
            #expect(!request.url.contains("test-token"))
        }
        let details = try #require(tmdb.requests.first { $0.url.contains("/movie/603") })
        #expect(details.url.hasSuffix("?append_to_response=external_ids,images,credits,release_dates"))
        let matrix = try #require(try await store.tmdbFilm(TMDbRef(.movie, 603)))
        #expect(matrix.body == (try TMDbFixtures.body("movie-603-append")) && matrix.fetchedAt == start)
        #expect(
            try await store.tmdbMapping("tt9999991") == TMDbMapping(imdbID: "tt9999991", ref: nil, checkedAt: start))
        #expect(try await store.tmdbMapping("tt0903747")?.ref == TMDbRef(.tv, 1396))
        #expect(
            try await store.tmdbCalls(since: "2026-01-01") == [TMDbCalendar.day(of: start): ["find": 3, "details": 2]])

        // Ten minutes later: everything fresh, the feed read at the start of the last run.
        tmdb.forget()
        let second = try await job(store, tmdb, at: start.addingTimeInterval(600)).run(imdbIDs: ids)
        #expect(tmdb.requests.isEmpty)
        #expect(second.fresh == 2 && second.notOnTMDb == 0 && second.totalCalls == 0 && second.feed == "recent")
    }

    @Test func theNextNightRefreshesExactlyWhatTheChangesFeedNames() async throws {
        let store = MemoryBackend(wall: .fixed(start))
        let tmdb = try tmdb()
        _ = try await job(store, tmdb, at: start).run(imdbIDs: ids)
        tmdb.forget()
        // The feed names the film, an entry the cache does not hold, and nothing of the series.
        tmdb.markChanged(.movie, [603, 777])
        let next = try await job(store, tmdb, at: start.addingTimeInterval(day)).run(imdbIDs: ids)
        #expect(next.feed == "read" && next.feedMarked == 1)
        #expect(next.fetched == 1 && next.changedRefreshed == 1 && next.fresh == 1)
        #expect(tmdb.paths.filter { !$0.hasSuffix("/changes") } == ["/movie/603"])
        let windows = tmdb.requests.filter { $0.url.contains("/changes") }.map(\.url)
        #expect(windows.count == 2)
        let from = TMDbCalendar.day(of: start)
        let to = TMDbCalendar.day(of: start.addingTimeInterval(day))
        #expect(windows.allSatisfy { $0.contains("start_date=\(from)&end_date=\(to)&page=1") })
        #expect(try await store.tmdbChangesSyncedThrough() == start.addingTimeInterval(day))
    }

    @Test func aLongGapReadsTheFeedInWindowsOfAtMostFourteenDaysAndBeyondItsReachTTLsDecide() async throws {
        let store = MemoryBackend(wall: .fixed(start))
        let tmdb = try tmdb()
        _ = try await job(store, tmdb, at: start).run(imdbIDs: ids)
        tmdb.forget()
        let later = try await job(store, tmdb, at: start.addingTimeInterval(20 * day)).run(imdbIDs: [])
        #expect(later.feed == "read")
        let windows = tmdb.requests.map(\.url).filter { $0.contains("/movie/changes") }
        #expect(windows.count == 2)
        func dates(_ url: String) -> (String, String) {
            let items = URLComponents(string: url)!.queryItems!
            return (items.first { $0.name == "start_date" }!.value!, items.first { $0.name == "end_date" }!.value!)
        }
        let first = dates(windows[0])
        let second = dates(windows[1])
        #expect(
            first.0 == TMDbCalendar.day(of: start)
                && first.1 == TMDbCalendar.day(of: start.addingTimeInterval(13 * day)))
        #expect(second.0 == TMDbCalendar.day(of: start.addingTimeInterval(14 * day)))
        #expect(second.1 == TMDbCalendar.day(of: start.addingTimeInterval(20 * day)))

        tmdb.forget()
        let gone = try await job(store, tmdb, at: start.addingTimeInterval(200 * day)).run(imdbIDs: [])
        #expect(gone.feed == "too-old" && tmdb.requests.isEmpty)
    }

    @Test func aRefusedTokenStopsTheRunAtItsFirstAnswerAndNeverShowsTheToken() async throws {
        let store = MemoryBackend(wall: .fixed(start))
        let tmdb = ScriptedTMDb()
        tmdb.route("/find/tt0133093", status: 401, body: try TMDbFixtures.body("error-401"))
        var configuration = TMDbWarmConfiguration(
            endpoint: try TMDbEndpoint(baseURL: "http://127.0.0.1:9/3", token: TMDbToken(Self.token)!))
        configuration.rate = 0
        configuration.maxInFlight = 1
        let summary = try await TMDbWarmJob(
            configuration: configuration, store: store, transport: tmdb,
            time: TimeSource(clock: ManualClock(), wall: .fixed(start)), logger: SampleFilms.logger
        ).run(imdbIDs: ["tt0133093", "tt0903747"])
        #expect(summary.stopDetail?.contains("refused the token") == true)
        #expect(summary.stopDetail?.contains("test-token") == false)
        #expect(summary.deferred == 2 && summary.fetched == 0 && tmdb.requests.count == 1)
    }

    @Test func anAnswerEchoingTheTokenIsNeverStored() async throws {
        let store = MemoryBackend(wall: .fixed(start))
        let tmdb = try tmdb()
        tmdb.route("/movie/603", body: Array(#"{"id":603,"title":"\#(Self.token)"}"#.utf8))
        var configuration = TMDbWarmConfiguration(
            endpoint: try TMDbEndpoint(baseURL: "http://127.0.0.1:9/3", token: TMDbToken(Self.token)!))
        configuration.rate = 0
        configuration.backoff = Backoff(base: .zero, cap: .zero, maxAttempts: 2)
        let summary = try await TMDbWarmJob(
            configuration: configuration, store: store, transport: tmdb,
            time: TimeSource(clock: ManualClock(), wall: .fixed(start)), logger: SampleFilms.logger
        ).run(imdbIDs: ["tt0133093"])
        #expect(summary.failed == 1 && summary.fetched == 0)
        #expect(try await store.tmdbFilm(TMDbRef(.movie, 603)) == nil)
    }

    @Test func aRetryAfterLongerThanTenMinutesStopsTMDbsPartInsteadOfHoldingEveryWorker() async throws {
        let store = MemoryBackend(wall: .fixed(start))
        let tmdb = try tmdb()
        tmdb.route("/find/tt0133093", status: 429, body: Array(#"{"status_code":25}"#.utf8), retryAfter: "3600")
        let summary = try await job(store, tmdb, at: start).run(imdbIDs: ["tt0133093", "tt0903747"])
        #expect(summary.stopDetail?.contains("TMDb asked to wait 1h") == true, "\(summary)")
        #expect(summary.deferred == 2 && summary.fetched == 0 && tmdb.requests.count == 1)
    }
}
