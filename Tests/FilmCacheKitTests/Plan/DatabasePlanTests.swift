import Foundation
import SplitMix
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// `CacheStore.plan` (the database holds and sorts) must make exactly the plan `Planner.plan` makes in memory.
@Suite struct DatabasePlanTests {
    let dir = TemporaryDirectory()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let day: TimeInterval = 86_400

    /// Fills a cache with a random mix of fresh, stale, upgradable, not-found and failed IDs and
    /// three overlapping worklists naming them (with duplicates inside a file).
    func randomCache(seed: UInt64, store: CacheStore) throws -> Worklist {
        var random = SplitMix64(seed: seed)
        let pool = (0..<400).map { String(format: "tt%07d", 1_000_000 + $0 * 7) }
        var batch = WriteBatch()
        for id in pool {
            switch Int.random(in: 0..<6, using: &random) {
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
            default:
                let attempted = now - Double.random(in: 1...40, using: &random) * day
                batch.lookups.append(
                    LookupRecord(
                        imdbID: id, status: Bool.random(using: &random) ? .notFound : .failed, message: nil,
                        httpStatus: nil, attemptedAt: attempted,
                        nextAttemptAt: attempted + Double.random(in: 0...60, using: &random) * day))
            }
        }
        try store.write(batch)
        // A second failure for some, so attempts differ.
        try store.write(WriteBatch(lookups: batch.lookups.filter { _ in Bool.random(using: &random) }))
        var worklist = Worklist()
        for file in 0..<3 {
            var parsed = ParsedWorklist(file: "list-\(file).txt")
            for line in 1...250 { parsed.append(pool.randomElement(using: &random)!, line: line) }
            worklist.append(parsed)
        }
        return worklist
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func theDatabasePlanIsThePlanInMemory(seed: UInt64) throws {
        let store = try CacheStore(path: dir.file("cache-\(seed).sqlite"), logger: SampleFilms.logger)
        let worklist = try randomCache(seed: seed, store: store)
        let planner = Planner()
        let uncut = try store.plan(worklist, planner: planner, now: now, budget: nil)
        for budget in [nil, -3, 0, 1, 37, 10_000] as [Int?] {
            let inMemory = planner.plan(
                try store.states(of: worklist.ids), demand: worklist.demand, now: now, budget: budget)
            let database = try store.plan(worklist, planner: planner, now: now, budget: budget)
            #expect(database == inMemory, "seed \(seed), budget \(String(describing: budget))")
            #expect(database.due > 0 && database.fresh > 0 && database.notFoundAwaitingRecheck > 0)
            // A warm plans in full while its key's name is worked out, then cuts to the calls left.
            var cut = uncut
            cut.cut(to: budget)
            #expect(cut == database, "seed \(seed), cut to \(String(describing: budget))")
        }
        #expect(!uncut.failedBefore.isEmpty, "failed IDs are scheduled, so the cut has failure counts to drop")
    }

    @Test func demandCountsFilesNotMentions() throws {
        let store = try CacheStore(path: dir.file("demand.sqlite"), logger: SampleFilms.logger)
        var worklist = Worklist()
        for (file, ids) in [["tt0000001", "tt0000001", "tt0000002"], ["tt0000003", "tt0000001"]].enumerated() {
            var parsed = ParsedWorklist(file: "w\(file)")
            for (line, id) in ids.enumerated() { parsed.append(id, line: line + 1) }
            worklist.append(parsed)
        }
        #expect(worklist.ids == ["tt0000001", "tt0000002", "tt0000003"])
        #expect(worklist.demand == ["tt0000001": 2, "tt0000002": 1, "tt0000003": 1])
        // Named by both files, tt0000001 goes first; the others keep worklist order.
        let plan = try store.plan(worklist, planner: Planner(), now: now, budget: 2)
        #expect(plan.toFetch == ["tt0000001", "tt0000002"] && plan.deferred == ["tt0000003"])
        #expect(plan.considered == 3 && plan.missing == 3)
    }
}

extension DatabasePlanTests {
    @Test func titlesArePlannedByWhatTheTitleIndexSaysAndRankLikeIDs() throws {
        let store = try CacheStore(path: dir.file("titles.sqlite"), logger: SampleFilms.logger)
        let day: TimeInterval = 86_400
        func query(_ title: String, _ year: Int) throws -> TitleQuery {
            try #require(TitleQuery(title: title, year: year))
        }
        // Known: Heat answers tt0113277 (cached, fresh). Not found: a title OMDb lacked yesterday (rechecked
        // in 29 days) and one it lacked 31 days ago (due again).
        try store.write(
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
        let plan = try store.plan(worklist, planner: Planner(), now: now, budget: 2)
        #expect(
            plan.titles
                == {
                    var t = Plan.TitleCounts(); t.distinct = 4; t.known = 1; t.notFound = 1; t.toResolve = 2; return t
                }())
        // Heat stands as its ID, cached and fresh: no call. New One is named by both files and goes first.
        #expect(plan.considered == 2 && plan.fresh == 1 && plan.missing == 1)
        #expect(plan.scheduled.map(\.description) == [#""New One" (2020)"#, "tt0000009"])
        #expect(plan.titlesDeferred.map(\.query.title) == ["Old Miss"] && plan.titlesDeferred[0].place == "list0.csv:4")
    }

    @Test func entriesComeBackAsWrittenWhateverTheirDigits() {
        let ids = ["tt0000001", "tt1234567", "tt0012345678", "tt9999999999", "not-an-id", "tt0000001", "tt12"]
        var worklist = Worklist(ids: ids)
        var seen: [String] = []
        worklist.forEachEntry { id, file in
            #expect(file == 0)
            seen.append(id)
        }
        #expect(seen == ids)
        #expect(worklist.ids == ["tt0000001", "tt1234567", "tt0012345678", "tt9999999999", "not-an-id", "tt12"])
        worklist.warnings = []
        #expect(worklist == Worklist(ids: ids))
    }
}
