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

    @Test func staleRowsGoByHowOverdueTimesHowManyWorklistsNameThem() {
        let current = FilmNormalizer.dataVersion
        let states = [
            // 40 days old at a 30-day TTL: 1.33 overdue; named by 3 worklists: 4.0.
            CachedState(imdbID: "wanted", fetchedAt: now - 40 * day, dataVersion: current),
            // 90 days old: 3.0 overdue, named once: 3.0.
            CachedState(imdbID: "oldest", fetchedAt: now - 90 * day, dataVersion: current),
            // 60 days: 2.0, named twice: 4.0, ties with "wanted"; worklist order breaks the tie.
            CachedState(imdbID: "tied", fetchedAt: now - 60 * day, dataVersion: current),
            CachedState(imdbID: "missing-once"),
            CachedState(imdbID: "missing-twice"),
            CachedState(imdbID: "upgrade-once", fetchedAt: now - day, dataVersion: current - 1),
            CachedState(imdbID: "upgrade-twice", fetchedAt: now - day, dataVersion: current - 1),
        ]
        let demand = ["wanted": 3, "tied": 2, "missing-twice": 2, "upgrade-twice": 2]
        let plan = Planner(freshness: .flat(30 * day)).plan(states, demand: demand, now: now)
        #expect(
            plan.toFetch == [
                "missing-twice", "missing-once", "wanted", "tied", "oldest", "upgrade-twice", "upgrade-once",
            ])
    }

    @Test func theBudgetCutsThePlanAndTheRestIsDeferredInOrder() {
        let current = FilmNormalizer.dataVersion
        let states =
            (1...5).map { CachedState(imdbID: "m\($0)") }
            + (1...4).map {
                CachedState(imdbID: "s\($0)", fetchedAt: now - Double(30 + $0) * day, dataVersion: current)
            }
        let plan = Planner(freshness: .flat(30 * day)).plan(states, now: now, budget: 7)
        #expect(plan.toFetch == ["m1", "m2", "m3", "m4", "m5", "s4", "s3"])
        #expect(plan.deferred == ["s2", "s1"])
        #expect(plan.due == 9 && plan.missing == 5 && plan.stale == 4)
        #expect(plan.daysToClear(callsPerDay: 1) == 2)
        #expect(plan.daysToClear(callsPerDay: 950) == 1)
        #expect(plan.daysToClear(callsPerDay: 0) == Int.max)

        let none = Planner(freshness: .flat(30 * day)).plan(states, now: now, budget: 0)
        #expect(none.toFetch.isEmpty && none.deferred.count == 9)
        let all = Planner(freshness: .flat(30 * day)).plan(states, now: now, budget: 100)
        #expect(all.deferred.isEmpty && all.daysToClear(callsPerDay: 10) == nil)
    }

    @Test func recentReleasesAndRunningSeriesRefreshSoonerOldFilmsLater() {
        let current = FilmNormalizer.dataVersion
        func state(_ id: String, fetchedDaysAgo: Double, age: TitleAge) -> CachedState {
            CachedState(imdbID: id, fetchedAt: now - fetchedDaysAgo * day, dataVersion: current, age: age)
        }
        let recent = TitleAge(releasedAt: now - 30 * day, isRunningSeries: false)
        let running = TitleAge(type: "series", yearStart: 2015, yearEnd: nil, released: "2015-04-01")
        let ended = TitleAge(type: "series", yearStart: 1990, yearEnd: 1998, released: "1990-01-01")
        let classic = TitleAge(type: "movie", yearStart: 1972, yearEnd: nil, released: "1972-03-24")
        let middle = TitleAge(type: "movie", yearStart: 2020, yearEnd: nil, released: nil)
        let states = [
            state("recent-8d", fetchedDaysAgo: 8, age: recent),
            state("recent-6d", fetchedDaysAgo: 6, age: recent),
            state("running-8d", fetchedDaysAgo: 8, age: running),
            state("ended-60d", fetchedDaysAgo: 60, age: ended),
            state("classic-60d", fetchedDaysAgo: 60, age: classic),
            state("classic-91d", fetchedDaysAgo: 91, age: classic),
            state("middle-29d", fetchedDaysAgo: 29, age: middle),
            state("middle-31d", fetchedDaysAgo: 31, age: middle),
        ]
        let plan = Planner().plan(states, now: now)
        #expect(Set(plan.toFetch) == ["recent-8d", "running-8d", "classic-91d", "middle-31d"])
        #expect(plan.fresh == 4)
    }

    @Test func failedIDsCarryTheirFailureCountIntoThePlan() {
        let states = [
            CachedState(imdbID: "failed-3", lookupStatus: .failed, nextAttemptAt: now - 1, lookupAttempts: 3),
            CachedState(imdbID: "not-found-due", lookupStatus: .notFound, nextAttemptAt: now - 1, lookupAttempts: 1),
        ]
        let plan = Planner().plan(states, now: now)
        #expect(plan.toFetch == ["failed-3", "not-found-due"])
        #expect(plan.failedBefore == ["failed-3": 3])
    }

    @Test func appRequestsRaiseAnIDWithinItsKindAndNeverOutOfIt() {
        let current = FilmNormalizer.dataVersion
        let states = [
            CachedState(imdbID: "missing-plain"),
            CachedState(imdbID: "missing-read"),
            // 90 days old at a 30-day TTL: 3.0 overdue; 40 days: 1.33, read by apps twice: 4.0.
            CachedState(imdbID: "stale-oldest", fetchedAt: now - 90 * day, dataVersion: current),
            CachedState(imdbID: "stale-read", fetchedAt: now - 40 * day, dataVersion: current),
            CachedState(imdbID: "upgrade-plain", fetchedAt: now - day, dataVersion: current - 1),
            CachedState(imdbID: "upgrade-read", fetchedAt: now - day, dataVersion: current - 1),
            CachedState(imdbID: "fresh-read", fetchedAt: now - day, dataVersion: current),
        ]
        let planner = Planner(freshness: .flat(30 * day))
        #expect(
            planner.plan(states, now: now).toFetch == [
                "missing-plain", "missing-read", "stale-oldest", "stale-read", "upgrade-plain", "upgrade-read",
            ])
        // A stale row read a million times still waits for every missing film; a fresh one is never due.
        let requests = [
            "missing-read": 1, "stale-read": 2, "upgrade-read": 5, "stale-oldest": 0, "fresh-read": 1_000_000,
        ]
        let plan = planner.plan(states, requests: requests, now: now, budget: 4)
        #expect(
            plan.toFetch + plan.deferred == [
                "missing-read", "missing-plain", "stale-read", "stale-oldest", "upgrade-read", "upgrade-plain",
            ])
        #expect(plan.requested == ["missing-read": 1, "stale-read": 2, "upgrade-read": 5])
        #expect(plan.mostRequested(limit: 2).map(\.imdbID) == ["upgrade-read", "stale-read"])
        let flooded = planner.plan(states, requests: ["stale-read": 1_000_000_000], now: now)
        #expect(flooded.toFetch.prefix(3) == ["missing-plain", "missing-read", "stale-read"])
    }

    @Test func theWeightGrowsWithRequestsAndWorklistsAndIsOneForAnIDNoAppAskedFor() {
        #expect(Planner.weight(named: 1, requests: 0) == 1 && Planner.weight(named: 0, requests: -3) == 1)
        #expect(Planner.weight(named: 3, requests: 0) == 3 && Planner.weight(named: 2, requests: 4) == 10)
        for named in 1...5 {
            for requests in 0...20 {
                #expect(
                    Planner.weight(named: named, requests: requests + 1)
                        > Planner.weight(named: named, requests: requests))
                #expect(
                    Planner.weight(named: named + 1, requests: requests)
                        > Planner.weight(named: named, requests: requests))
            }
        }
    }
}
