import Foundation
import Testing

@testable import FilmCacheKit

@Suite struct PlannerTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let day: TimeInterval = 86_400

    @Test func missingFirstThenStaleOldestFirstThenUpgradesFreshSkipped() {
        let current = FilmNormalizer.dataVersion
        let states = [
            CachedState(imdbID: "fresh", fetchedAt: now - 2 * day, dataVersion: current),
            CachedState(imdbID: "stale-newer", fetchedAt: now - 31 * day, dataVersion: current),
            CachedState(imdbID: "missing-1"),
            CachedState(imdbID: "stale-older", fetchedAt: now - 90 * day, dataVersion: current),
            CachedState(imdbID: "old-version", fetchedAt: now - day, dataVersion: current - 1),
            CachedState(imdbID: "missing-2"),
            CachedState(
                imdbID: "not-found-waiting", lookupStatus: .notFound, nextAttemptAt: now + day),
            CachedState(imdbID: "not-found-due", lookupStatus: .notFound, nextAttemptAt: now - 1),
            CachedState(imdbID: "failed-waiting", lookupStatus: .failed, nextAttemptAt: now + 60),
        ]
        let plan = Planner(freshness: .flat(30 * day)).plan(states, now: now)
        #expect(
            plan.toFetch == ["missing-1", "missing-2", "not-found-due", "stale-older", "stale-newer", "old-version"])
        #expect(plan.considered == 9)
        #expect(plan.fresh == 1)
        #expect(plan.stale == 2 && plan.upgrades == 1 && plan.missing == 3)
        #expect(plan.notFoundAwaitingRecheck == 1 && plan.failedAwaitingRetry == 1)
    }

    @Test func exactlyAtTheTTLIsStale() {
        let states = [CachedState(imdbID: "a", fetchedAt: now - 30 * day, dataVersion: FilmNormalizer.dataVersion)]
        #expect(Planner(freshness: .flat(30 * day)).plan(states, now: now).toFetch == ["a"])
        #expect(Planner(freshness: .flat(31 * day)).plan(states, now: now).toFetch.isEmpty)
    }
}
