import Foundation
import Testing

@testable import FilmCacheKit

/// Instants no freshness rule may trust, and the refresh an operator forces.
@Suite struct FreshnessInstantTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let day = FreshnessPolicy.day
    let title = TitleAge(releasedAt: nil, isRunningSeries: false)
    let current = FilmNormalizer.dataVersion

    /// A row fetched in the future beyond the skew is stale to the planner, to `stats` and to `serve`;
    /// within the skew (another host's clock a little fast) it is believed.
    @Test(arguments: [(60.0, true), (299.0, true), (301.0, false), (3_600.0, false), (3_650 * 86_400.0, false)])
    func aRowFetchedInTheFutureIsStaleBeyondTheSkew(ahead: TimeInterval, fresh: Bool) {
        let policy = FreshnessPolicy()
        let fetched = now.addingTimeInterval(ahead)
        let judgement = policy.judge(fetchedAt: fetched, dataVersion: current, title: title, at: now)
        #expect((judgement == .fresh) == fresh, "\(ahead) s ahead: \(judgement)")
        let until = policy.freshUntil(fetchedAt: fetched, title: title, at: now)
        #expect((until > now) == fresh)
        let placement = Planner(freshness: policy).place(
            CachedState(imdbID: "tt0000001", fetchedAt: fetched, dataVersion: current), demand: 1, position: 0,
            now: now)
        #expect((placement == .fresh) == fresh)
    }

    /// `--refresh`: everything fetched before the run began is due, negative answers and failures
    /// too; a film fetched after it began is not fetched again.
    @Test func aForcedRefreshMakesDueWhatWasFetchedBeforeTheRunAndNothingAfter() {
        var policy = FreshnessPolicy()
        policy.refreshBefore = now
        let planner = Planner(freshness: policy)
        let states = [
            CachedState(imdbID: "tt0000001", fetchedAt: now - 60, dataVersion: current),
            CachedState(imdbID: "tt0000002", fetchedAt: now + 60, dataVersion: current),
            CachedState(imdbID: "tt0000003", lookupStatus: .notFound, nextAttemptAt: now + 20 * day),
            CachedState(imdbID: "tt0000004", lookupStatus: .failed, nextAttemptAt: now + day, lookupAttempts: 2),
        ]
        let plan = planner.plan(states, now: now)
        #expect(Set(plan.toFetch) == ["tt0000001", "tt0000003", "tt0000004"])
        let unforced = Planner(freshness: FreshnessPolicy()).plan(states, now: now)
        #expect(unforced.toFetch.isEmpty)
    }
}

/// The title index's one rule: a found film answers every spelling; a "not found" only its own.
@Suite struct TitleIndexStandingTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aMissAnswersOnlyTheSpellingThatGotItAndAFindAnswersEvery() throws {
        let right = try #require(TitleQuery(title: "Amélie"))
        let typo = try #require(TitleQuery(title: "Amelie"))
        #expect(right.key == typo.key)
        let miss = TitleIndexRow(imdbID: nil, nextAttemptAt: now + 86_400, askedTitle: typo.title)
        #expect(TitleIndexRow.standing(of: typo, row: miss, at: now) == .notFound)
        #expect(TitleIndexRow.standing(of: right, row: miss, at: now) == .due)
        #expect(TitleIndexRow.standing(of: typo, row: miss, at: now + 2 * 86_400) == .due)
        let found = TitleIndexRow(imdbID: "tt0211915", nextAttemptAt: nil, askedTitle: right.title)
        #expect(TitleIndexRow.standing(of: typo, row: found, at: now) == .resolved("tt0211915"))
        #expect(TitleIndexRow.standing(of: right, row: nil, at: now) == .due)
    }
}
