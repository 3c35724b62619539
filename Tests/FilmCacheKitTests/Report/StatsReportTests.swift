import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// `filmcache stats` over films of every type and age class.
@Suite struct StatsReportTests {
    let dir = TemporaryDirectory()
    let now = TestDates.utc(2026, 11, 21, 12)
    let day: TimeInterval = 86_400

    /// Films of every type and age class, fetched at ages on and around each histogram bound.
    func store() throws -> CacheStore {
        let store = try CacheStore(path: dir.file("cache.sqlite"), logger: SampleFilms.logger)
        func film(
            _ n: Int, ageInDays age: Double, type: FilmType = .movie, released: CalendarDate?, version: Int? = nil
        )
            -> IMDBFilm
        {
            var film = SampleFilms.film("tt\(1_000_000 + n)", fetchedAt: now - age * day)
            film.type = type
            film.released = released
            film.yearStart = released?.year
            if let version { film.dataVersion = version }
            return film
        }
        let standard = CalendarDate(year: 2020, month: 3, day: 1)
        let recent = CalendarDate(year: 2026, month: 10, day: 1)
        let old = CalendarDate(year: 1994, month: 9, day: 23)
        try store.write(
            WriteBatch(
                films: [
                    film(1, ageInDays: 0, released: standard),
                    film(2, ageInDays: 0.99, released: recent),
                    film(3, ageInDays: 1, released: recent),
                    film(11, ageInDays: 3, released: standard),
                    film(4, ageInDays: 6.5, released: old, version: FilmNormalizer.dataVersion - 1),
                    film(5, ageInDays: 7, type: .series, released: recent),  // recent: TTL 7 d, stale
                    film(6, ageInDays: 29, type: .episode, released: standard),
                    film(7, ageInDays: 30, released: standard),  // standard: TTL 30 d, stale
                    film(8, ageInDays: 89, released: old),  // old: TTL 90 d, fresh
                    film(9, ageInDays: 90, released: old),  // stale
                    film(10, ageInDays: 400, type: .series, released: nil),  // no date: standard, stale
                ],
                lookups: [
                    LookupRecord(
                        imdbID: "tt0000001", status: .notFound, message: "Incorrect IMDb ID.", httpStatus: 200,
                        attemptedAt: now, nextAttemptAt: now + 30 * day),
                    LookupRecord(
                        imdbID: "tt0000002", status: .notFound, message: "Incorrect IMDb ID.", httpStatus: 200,
                        attemptedAt: now, nextAttemptAt: now + 30 * day),
                    LookupRecord(
                        imdbID: "tt0000003", status: .failed, message: "HTTP 503", httpStatus: 503, attemptedAt: now,
                        nextAttemptAt: now + 3_600),
                ]))
        return store
    }

    @Test func theCensusJudgesFreshnessAsThePlannerDoes() throws {
        let census = try store().census(freshness: FreshnessPolicy(), now: now)
        #expect(census.films == 11)
        #expect(census.filmsByType == ["movie": 8, "series": 2, "episode": 1])
        #expect(census.fetchedAges == [2, 3, 2, 2, 2], "< 1 d, 1–7 d, 7–30 d, 30–90 d, > 90 d")
        #expect(census.stale == 4 && census.upgrades == 1 && census.fresh == 6)
        #expect(census.ageClasses == [.standard: 5, .recent: 3, .old: 3])
        #expect(census.dataVersions == [FilmNormalizer.dataVersion: 10, FilmNormalizer.dataVersion - 1: 1])
        #expect(census.notFound == 2 && census.failed == 1)

        // The same films through the planner: the same verdicts.
        let ids = (1...11).map { "tt\(1_000_000 + $0)" }
        let plan = Planner().plan(try store().states(of: ids), now: now)
        #expect(plan.fresh == census.fresh && plan.stale == census.stale && plan.upgrades == census.upgrades)
    }

    @Test func theHistogramBoundsAreExclusiveAbove() {
        let bounds: [(TimeInterval, Int)] = [
            (-5, 0), (0, 0), (day - 1, 0), (day, 1), (7 * day, 2), (30 * day - 1, 2), (30 * day, 3), (90 * day, 4),
            (1e9, 4),
        ]
        for (age, bucket) in bounds { #expect(CacheCensus.ageBucket(for: age) == bucket, "\(age)") }
    }

    @Test func theTextShowsSizesTypesFreshnessAgesAndVersions() async throws {
        let store = try store()
        let worklist = Worklist(ids: ["tt1000001", "tt1000005", "tt9999999", "tt0000001"])
        let stats = try await CacheStats.load(
            store: SQLiteBackend(store: store), database: dir.file("cache.sqlite"), file: dir.file("cache.sqlite"),
            settings: PlanSettings(),
            worklist: worklist,
            now: now)
        #expect(
            stats.databaseExists && stats.databaseBytes > 0 && stats.fileBytes == stats.databaseBytes + stats.walBytes)
        let lines = StatsReport.text(stats).split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "  file        \(StatsReport.size(stats.fileBytes)): database \(stats.databaseBytes) bytes"
                    + " + write-ahead log \(stats.walBytes) bytes"))
        #expect(lines.contains("  films       11  rows"))
        #expect(lines.contains("  lookups      3  rows: 2 not found, 1 failed"))
        #expect(lines.contains("  movie    8  " + String(repeating: "█", count: 30)))
        #expect(lines.contains("  episode  1  ███▊"), "1 of 8 is 30/8 cells")
        #expect(lines.contains("  stale       4  past their TTL: a warm naming them refreshes them"))
        #expect(lines.contains("  < 1 d    2  " + String(repeating: "█", count: 20)))
        #expect(lines.contains("  1–7 d    3  " + String(repeating: "█", count: 30)))
        #expect(lines.contains("  considered    4  distinct IDs"))
        #expect(lines.contains("  missing       1  not cached (or a negative answer now due again)"))
        #expect(lines.contains("  stale         1  cached but past their TTL"))
        #expect(lines.contains("  not found     1  OMDb did not know them; rechecked after their TTL"))
        #expect(lines.contains("  v\(FilmNormalizer.dataVersion)  10  " + String(repeating: "█", count: 30)))
        #expect(lines.contains("  v\(FilmNormalizer.dataVersion - 1)   1  ███"))
        #expect(
            lines.contains(
                "freshness now (TTL 30 d; 7 d when released in the last 182 d or a running series; 90 d when older than 10 years)"
            ))
    }

    @Test func theJSONCarriesTheSameCounts() async throws {
        let stats = try await CacheStats.load(
            store: SQLiteBackend(store: try store()), database: dir.file("cache.sqlite"),
            file: dir.file("cache.sqlite"),
            settings: PlanSettings(),
            worklist: nil,
            now: now)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(StatsReport.json(stats).utf8)) as? [String: Any])
        #expect(object["films"] as? Int == 11 && object["notFound"] as? Int == 2 && object["failed"] as? Int == 1)
        #expect(object["stale"] as? Int == 4 && object["fresh"] as? Int == 6 && object["upgrades"] as? Int == 1)
        #expect((object["byType"] as? [String: Int]) == ["movie": 8, "series": 2, "episode": 1])
        #expect(
            (object["dataVersions"] as? [String: Int]) == [
                String(FilmNormalizer.dataVersion): 10, String(FilmNormalizer.dataVersion - 1): 1,
            ])
        let ages = try #require(object["fetchedAge"] as? [[String: Any]])
        #expect(ages.map { $0["films"] as? Int } == [2, 3, 2, 2, 2])
        #expect(ages.last?["belowDays"] is NSNull && ages.first?["belowDays"] as? Int == 1)
        #expect(object["worklists"] is NSNull)
        #expect((object["ageClasses"] as? [String: Int]) == ["recent": 3, "standard": 5, "old": 3])
    }

    @Test func anAbsentDatabaseIsAnEmptyCache() async throws {
        let store = try CacheStore(path: ":memory:", logger: SampleFilms.logger)
        let stats = try await CacheStats.load(
            store: SQLiteBackend(store: store), database: dir.file("none.sqlite"), file: dir.file("none.sqlite"),
            settings: PlanSettings(),
            worklist: nil, now: now)
        #expect(!stats.databaseExists && stats.fileBytes == 0 && stats.census.films == 0)
        let text = StatsReport.text(stats)
        #expect(text.contains("(no database file yet: an empty cache)"))
        #expect(text.contains("films by type\n  none"))
    }
}
