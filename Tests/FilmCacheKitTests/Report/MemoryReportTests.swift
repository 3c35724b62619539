import Foundation
import Testing

@testable import FilmCacheKit

/// The reports (`stats`, `quota`, `plan`) built from a cache held in memory.
@Suite struct MemoryReportTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    let day: TimeInterval = 86_400

    /// A cache with a fresh film, a stale one, a not-found and a failed ID.
    func cache() async throws -> MemoryBackend {
        let store = MemoryBackend(wall: .fixed(now))
        var stale = SampleFilms.film("tt0000002", fetchedAt: now - 400 * day)
        stale.released = CalendarDate(year: 2024, month: 1, day: 1)
        try await store.write(
            WriteBatch(
                films: [SampleFilms.film("tt0000001", fetchedAt: now - day), stale],
                lookups: [
                    LookupRecord(
                        imdbID: "tt0000003", status: .notFound, message: "Incorrect IMDb ID.", httpStatus: 200,
                        attemptedAt: now - day, nextAttemptAt: now + 30 * day),
                    LookupRecord(
                        imdbID: "tt0000004", status: .failed, message: "HTTP 503", httpStatus: 503,
                        attemptedAt: now - day, nextAttemptAt: now - 60),
                ]))
        return store
    }

    @Test func statsCountTheCacheAndPlanTheWorklistAgainstIt() async throws {
        let store = try await cache()
        let stats = try await CacheStats.load(
            store: store, database: "/nonexistent/cache.sqlite", file: "/nonexistent/cache.sqlite",
            settings: PlanSettings(),
            worklist: Worklist(ids: ["tt0000001", "tt0000002", "tt0000003", "tt0000004", "tt0000005"]), now: now)
        #expect(stats.census.films == 2 && stats.census.notFound == 1 && stats.census.failed == 1)
        #expect(stats.census.fresh == 1 && stats.census.stale == 1)
        let plan = try #require(stats.worklists?.plan)
        #expect(plan.fresh == 1 && plan.stale == 1 && plan.notFoundAwaitingRecheck == 1 && plan.missing == 2)
        #expect(plan.toFetch == ["tt0000004", "tt0000005", "tt0000002"], "missing first, then stale")
        #expect(StatsReport.text(stats).contains("2"))
    }

    @Test func theQuotaReportReadsTheLedgerAndTheRuns() async throws {
        let store = try await cache()
        let today = QuotaDay(containing: now)
        let run = try await store.beginRun(startedAt: now - 600, key: "abcd")
        #expect(
            try await store.reserveCalls(
                12, key: "abcd", day: today, minute: QuotaDay.minute(of: now - 600), dailyLimit: 100, usable: 95,
                runID: run) == 12)
        var summary = WarmSummary()
        summary.fetched = 12
        summary.calls = 12
        try await store.finishRun(id: run, summary: summary, finishedAt: now - 300, outcome: "done")
        let status = try await QuotaStatus.load(
            store: store, keyFingerprint: "abcd", settings: PlanSettings(), now: now)
        #expect(status.keyInLedger && status.used == 12 && status.budget.limit == 100)
        #expect(status.left == 95 - 12)
        #expect(status.runs.map(\.id) == [run] && status.runs[0].calls == 12)
        #expect(QuotaReport.text(status, database: store.displayName).contains("12"))
    }

    @Test func theNightsPlanTakesTodaysUseFromTheLedger() async throws {
        let store = try await cache()
        var settings = PlanSettings()
        settings.dailyLimit = 20
        let today = QuotaDay(containing: now, in: settings.quotaTimeZone)
        _ = try await store.reserveCalls(
            18, key: "abcd", day: today, minute: nil, dailyLimit: 20, usable: 19, runID: nil)
        let night = try await NightPlan.make(
            worklist: Worklist(ids: ["tt0000004", "tt0000005", "tt0000002"]), store: store, settings: settings,
            keyFingerprint: "abcd", now: now)
        #expect(night.callsUsed == 18 && night.callsLeft == 1)
        #expect(night.plan.toFetch == ["tt0000004"] && night.plan.deferred == ["tt0000005", "tt0000002"])
        #expect(PlanReport.json(night, keyFingerprint: "abcd", ids: true).contains("tt0000004"))
    }
}
