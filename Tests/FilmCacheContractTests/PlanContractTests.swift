import Foundation
import SplitMix
import Testing

@testable import FilmCacheKit

/// The contract of a backend, part two: the plan is the in-memory planner's, and every backend makes
/// the same one; the census counts as the planner judges.
@Suite(.timeLimit(.minutes(3))) struct PlanContractTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let day: TimeInterval = 86_400

    /// A random mix of fresh, stale, upgradable, not-found, failed and aliased IDs, some named by
    /// title, three overlapping worklists naming them (duplicates inside a file too), and the
    /// apps' requests for some of them.
    func randomCache(seed: UInt64) throws -> (batches: [WriteBatch], worklist: Worklist, demand: [String: Int]) {
        var random = SplitMix64(seed: seed)
        let pool = (0..<400).map { String(format: "tt%07d", 1_000_000 + $0 * 7) }
        var batch = WriteBatch()
        for (index, id) in pool.enumerated() {
            switch Int.random(in: 0..<7, using: &random) {
            case 0: continue  // never seen
            case 1, 2:
                var film = SampleFilms.film(id, fetchedAt: now - Double.random(in: 0...200, using: &random) * day)
                film.dataVersion = FilmNormalizer.dataVersion - Int.random(in: 0...1, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: film.released = CalendarDate(year: 2026, month: 12, day: 1)
                case 1: film.released = CalendarDate(year: 1971, month: 3, day: 2)
                case 2:
                    film.type = .series
                    film.yearEnd = Bool.random(using: &random) ? nil : 1999
                default: film.released = nil
                }
                batch.films.append(film)
            case 3:
                // Merged by IMDb into the film two places on, whatever that holds.
                batch.aliases.append(
                    FilmAlias(askedID: id, imdbID: pool[(index + 2) % pool.count], recordedAt: now - day))
            default:
                let attempted = now - Double.random(in: 1...40, using: &random) * day
                batch.lookups.append(
                    LookupRecord(
                        imdbID: id, status: Bool.random(using: &random) ? .notFound : .failed, message: nil,
                        httpStatus: nil, attemptedAt: attempted,
                        nextAttemptAt: attempted + Double.random(in: 0...60, using: &random) * day))
            }
        }
        // Titles: some known (answering pool IDs), some not found (waiting or due again), some never asked.
        var titles: [TitleQuery] = []
        for index in 0..<40 {
            let query = try #require(TitleQuery(title: "Title \(index % 30)", year: 1990 + index % 3))
            titles.append(query)
            switch index % 4 {
            case 0:
                batch.titles.append(TitleAnswer(query: query, imdbID: pool[index * 9], answeredAt: now - day))
            case 1:
                let waiting = Bool.random(using: &random)
                batch.titles.append(
                    TitleAnswer(
                        query: query, imdbID: nil, answeredAt: now - 31 * day,
                        nextAttemptAt: waiting ? now + day : now - day))
            default: break
            }
        }
        // A second failure for some, so attempts differ.
        let again = WriteBatch(lookups: batch.lookups.filter { _ in Bool.random(using: &random) })
        var demand: [String: Int] = [:]
        for id in pool where Int.random(in: 0..<3, using: &random) == 0 {
            demand[id] = Int.random(in: 1...4, using: &random)
        }
        var worklist = Worklist()
        for file in 0..<3 {
            var parsed = ParsedWorklist(file: "list-\(file).txt")
            for line in 1...250 { parsed.append(pool.randomElement(using: &random)!, line: line) }
            for line in 251...270 { parsed.append(titles.randomElement(using: &random)!, line: line) }
            worklist.append(parsed)
        }
        return ([batch, again], worklist, demand)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyBackendMakesThePlanThePlannerMakesInMemory(seed: UInt64) async throws {
        let (batches, worklist, demand) = try randomCache(seed: seed)
        let planner = Planner()
        var plans: [BackendKind: [Plan]] = [:]
        for kind in BackendKind.allCases {
            plans[kind] = try await kind.withBackend { db, _ in
                for batch in batches { try await db.write(batch) }
                try await db.recordDemand(demand, at: now)
                var plans: [Plan] = []
                for budget in [nil, 0, 37, 10_000] as [Int?] {
                    let plan = try await db.plan(worklist, planner: planner, now: now, budget: budget)
                    plans.append(plan)
                    #expect(plan.due > 0 && plan.fresh > 0 && plan.notFoundAwaitingRecheck > 0, "\(kind)")
                    #expect(plan.titles.known > 0 && plan.titles.toResolve > 0, "\(kind)")
                    #expect(!plan.requested.isEmpty, "\(kind)")
                }
                // Without titles, the database plan is the in-memory planner's over the same states.
                let ids = Worklist(ids: worklist.ids)
                let inMemory = planner.plan(
                    try await db.states(of: ids.ids), requests: try await db.demand(of: ids.ids), now: now, budget: 50)
                #expect(try await db.plan(ids, planner: planner, now: now, budget: 50) == inMemory, "\(kind)")
                return plans
            }
        }
        #expect(plans[.sqlite] == plans[.postgres], "seed \(seed)")
        #expect(plans[.memory] == plans[.sqlite], "seed \(seed)")
    }

    @Test(arguments: BackendKind.allCases)
    func titlesArePlannedByWhatTheTitleIndexSaysAndRankLikeIDs(_ kind: BackendKind) async throws {
        func query(_ title: String, _ year: Int) throws -> TitleQuery {
            try #require(TitleQuery(title: title, year: year))
        }
        try await kind.withBackend { db, _ in
            try await db.write(
                WriteBatch(
                    films: [SampleFilms.film("tt0113277", fetchedAt: now)],
                    titles: [
                        TitleAnswer(query: try query("Heat", 1995), imdbID: "tt0113277", answeredAt: now),
                        TitleAnswer(
                            query: try query("Lost Film", 1990), imdbID: nil, answeredAt: now - day,
                            nextAttemptAt: now + 29 * day),
                        TitleAnswer(
                            query: try query("Old Miss", 1980), imdbID: nil, answeredAt: now - 31 * day,
                            nextAttemptAt: now - day),
                    ]))
            var worklist = Worklist()
            for (file, titles) in [
                [("HEAT", 1995), ("Lost Film", 1990), ("Old Miss", 1980), ("New One", 2020)],
                [("New One", 2020), ("Heat", 1995)],
            ].enumerated() {
                var parsed = ParsedWorklist(file: "list\(file).csv")
                for (line, title) in titles.enumerated() { parsed.append(try query(title.0, title.1), line: line + 2) }
                if file == 1 { parsed.append("tt0000009", line: 9) }
                worklist.append(parsed)
            }
            let plan = try await db.plan(worklist, planner: Planner(), now: now, budget: 2)
            var counts = Plan.TitleCounts()
            counts.distinct = 4
            counts.known = 1
            counts.notFound = 1
            counts.toResolve = 2
            #expect(plan.titles == counts)
            #expect(plan.considered == 2 && plan.fresh == 1 && plan.missing == 1)
            #expect(plan.scheduled.map(\.description) == [#""New One" (2020)"#, "tt0000009"])
            #expect(plan.titlesDeferred.map(\.query.title) == ["Old Miss"])
            #expect(plan.titlesDeferred.first?.place == "list0.csv:4")
        }
    }

    @Test(arguments: BackendKind.allCases)
    func demandCountsFilesNotMentions(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            var worklist = Worklist()
            for (file, ids) in [["tt0000001", "tt0000001", "tt0000002"], ["tt0000003", "tt0000001"]].enumerated() {
                var parsed = ParsedWorklist(file: "w\(file)")
                for (line, id) in ids.enumerated() { parsed.append(id, line: line + 1) }
                worklist.append(parsed)
            }
            let plan = try await db.plan(worklist, planner: Planner(), now: now, budget: 2)
            #expect(plan.toFetch == ["tt0000001", "tt0000002"] && plan.deferred == ["tt0000003"])
            #expect(plan.considered == 3 && plan.missing == 3)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func appRequestsGoFirstWithinAKindAndNeverAheadOfAMissingFilm(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let current = FilmNormalizer.dataVersion
            // With a 30-day TTL: "stale-oldest" 3.0 overdue, "stale-read" 1.33 (4.0 with 2 requests).
            var staleOldest = SampleFilms.film("tt0000003", fetchedAt: now - 90 * day)
            var staleRead = SampleFilms.film("tt0000004", fetchedAt: now - 40 * day)
            var upgradePlain = SampleFilms.film("tt0000005", fetchedAt: now - day)
            var upgradeRead = SampleFilms.film("tt0000006", fetchedAt: now - day)
            var fresh = SampleFilms.film("tt0000007", fetchedAt: now - day)
            staleOldest.dataVersion = current
            staleRead.dataVersion = current
            upgradePlain.dataVersion = current - 1
            upgradeRead.dataVersion = current - 1
            fresh.dataVersion = current
            try await db.write(WriteBatch(films: [staleOldest, staleRead, upgradePlain, upgradeRead, fresh]))
            // Missing, in worklist order: tt0000001 (plain), tt0000002 (read once).
            let worklist = Worklist(ids: (1...7).map { "tt000000\($0)" })
            let planner = Planner(freshness: .flat(30 * day))
            let before = try await db.plan(worklist, planner: planner, now: now, budget: 3)
            let order = ["tt0000001", "tt0000002", "tt0000003", "tt0000004", "tt0000005", "tt0000006"]
            #expect(before.toFetch + before.deferred == order && before.requested.isEmpty)

            try await db.recordDemand(
                ["tt0000002": 1, "tt0000004": 2, "tt0000006": 5, "tt0000007": 1_000, "tt0000099": 9], at: now)
            let plan = try await db.plan(worklist, planner: planner, now: now, budget: 3)
            let reordered = ["tt0000002", "tt0000001", "tt0000004", "tt0000003", "tt0000006", "tt0000005"]
            #expect(plan.toFetch + plan.deferred == reordered)
            #expect(plan.toFetch == Array(reordered.prefix(3)))
            #expect(plan.requested == ["tt0000002": 1, "tt0000004": 2, "tt0000006": 5])
            let inMemory = planner.plan(
                try await db.states(of: worklist.ids), requests: try await db.demand(of: worklist.ids), now: now,
                budget: 3)
            #expect(plan == inMemory)

            // However often apps read a stale film, every missing one goes first.
            try await db.recordDemand(["tt0000003": 1_000_000_000], at: now)
            let flooded = try await db.plan(worklist, planner: planner, now: now, budget: nil)
            #expect(flooded.toFetch.prefix(3) == ["tt0000002", "tt0000001", "tt0000003"])
        }
    }

    @Test func theCensusIsTheSameOnEveryBackend() async throws {
        let (batches, _, _) = try randomCache(seed: 9)
        var censuses: [CacheCensus] = []
        for kind in BackendKind.allCases {
            censuses.append(
                try await kind.withBackend { db, _ in
                    for batch in batches { try await db.write(batch) }
                    let census = try await db.census(freshness: FreshnessPolicy(), now: now)
                    #expect(census.films == batches[0].films.count, "\(kind)")
                    #expect(census.notFound + census.failed == Set(batches[0].lookups.map(\.imdbID)).count, "\(kind)")
                    #expect(census.fresh > 0 && census.stale > 0 && census.upgrades > 0, "\(kind)")
                    return census
                })
        }
        #expect(censuses.count == BackendKind.allCases.count && censuses.allSatisfy { $0 == censuses[0] })
    }
}
