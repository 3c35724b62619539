import FilmCachePrometheus
import FilmCacheTestSupport
import Foundation
import Testing

@testable import FilmCacheKit

/// TMDb in the reports: `show` (text and JSON), `stats`, `plan`, the warm summary, `quota` and the
/// metrics file, read from a cache held in memory; and every report unchanged for a cache without TMDb.
@Suite struct TMDbReportTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    let day: TimeInterval = 86_400

    /// Fight Club as TMDb answers it.
    func fightClub(fetchedAt: Date) -> TMDbFilm {
        TMDbFilm(
            ref: TMDbRef(.movie, 550), imdbID: "tt0137523", title: "Fight Club", originalTitle: "Fight Club",
            overview: "A ticking-time-bomb insomniac \"and\" a soap salesman.", releaseDate: "1999-10-15",
            runtime: 139, genres: ["Drama", "Thriller"], voteAverage: 8.4, voteCount: 26_280, popularity: 61.416,
            posterPath: "/pB8BM7pdSp6B6Ih7QZ4DrQ3PmJK.jpg", backdropPath: "/hZkgoQYus5vegHoetLkCJzb17zJ.jpg",
            collection: nil, status: "Released", body: Array(#"{"id":550}"#.utf8), fetchedAt: fetchedAt)
    }

    /// A series whose original name differs from its title.
    func series(fetchedAt: Date) -> TMDbFilm {
        TMDbFilm(
            ref: TMDbRef(.tv, 70523), imdbID: "tt5753856", title: "Dark", originalTitle: "Dark",
            releaseDate: "2017-12-01", runtime: 60, genres: [], body: Array("{}".utf8), fetchedAt: fetchedAt)
    }

    /// A cache with an OMDb film and its TMDb entry, a TMDb-only entry, a negative answer, and an
    /// entry `/find` named but no warm fetched.
    func cache() async throws -> MemoryBackend {
        let store = MemoryBackend(wall: .fixed(now))
        try await store.write(WriteBatch(films: [SampleFilms.film("tt0137523", title: "Fight Club")]))
        var dark = series(fetchedAt: now - 40 * day)
        dark.originalTitle = "Dark (DE)"
        _ = try await store.writeTMDb(
            TMDbBatch(
                mappings: [
                    TMDbMapping(imdbID: "tt0137523", ref: TMDbRef(.movie, 550), checkedAt: now - day),
                    TMDbMapping(imdbID: "tt5753856", ref: TMDbRef(.tv, 70523), checkedAt: now - day),
                    TMDbMapping(imdbID: "tt0000404", ref: nil, checkedAt: now - 2 * day),
                    TMDbMapping(imdbID: "tt0000777", ref: TMDbRef(.movie, 777), checkedAt: now - day),
                ],
                films: [fightClub(fetchedAt: now - day), dark]))
        return store
    }

    // MARK: - show

    @Test func showPrintsTheEntryAfterTheFilmAndCreditsTMDb() async throws {
        let store = try await cache()
        let side = try #require(try await TMDbSide.load("tt0137523", from: store))
        #expect(side.film?.ref == TMDbRef(.movie, 550))
        let text = TMDbFilmText.human(side)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "TMDb movie:550 (film) — Fight Club")
        #expect(!text.contains("original"), "the original title is shown only when it differs")
        #expect(lines.contains("released    1999-10-15"))
        #expect(lines.contains("runtime     139 min"))
        #expect(lines.contains("genres      Drama, Thriller"))
        #expect(lines.contains("votes       8.4/10 (26280 votes)"))
        #expect(lines.contains("popularity  61.416"))
        #expect(lines.contains("poster      /pB8BM7pdSp6B6Ih7QZ4DrQ3PmJK.jpg"))
        #expect(lines.contains("status      Released"))
        #expect(lines.contains("fetched     " + Timestamp.format(now - day)))
        #expect(!text.contains("collection"), "absent values print no line")
        #expect(lines.last?.hasPrefix("Data from TMDb") == true)

        let dark = TMDbFilmText.human(try #require(try await TMDbSide.load("tt5753856", from: store)))
        #expect(dark.contains("TMDb tv:70523 (series) — Dark") && dark.contains("original    Dark (DE)"))
        #expect(dark.contains("first aired 2017-12-01") && !dark.contains("genres"))
    }

    @Test func showJSONAddsTheEntryAsTheLastKeyOfTheCanonicalForm() async throws {
        let store = try await cache()
        let film = try #require(try await store.film("tt0137523"))
        let side = try await TMDbSide.load("tt0137523", from: store)
        let json = TMDbFilmText.json(imdbID: "tt0137523", film: film, tmdb: side)
        let canonical = FilmText.json(film)
        #expect(json.hasPrefix(String(canonical.dropLast(3)) + ",\n  \"tmdb\": {\n    \"tmdb_id\": 550,\n"))
        #expect(json.hasSuffix("\n  }\n}\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["imdbID"] as? String == "tt0137523" && object["title"] as? String == "Fight Club")
        let tmdb = try #require(object["tmdb"] as? [String: Any])
        #expect(
            Set(tmdb.keys) == [
                "tmdb_id", "media_type", "imdb_id", "title", "original_title", "overview", "release_date", "runtime",
                "genres", "vote_average", "vote_count", "popularity", "poster_path", "backdrop_path", "collection",
                "status", "fetched_at",
            ])
        #expect(tmdb["tmdb_id"] as? Int == 550 && tmdb["media_type"] as? String == "movie")
        #expect(tmdb["overview"] as? String == "A ticking-time-bomb insomniac \"and\" a soap salesman.")
        #expect(tmdb["genres"] as? [String] == ["Drama", "Thriller"])
        #expect(tmdb["vote_average"] as? Double == 8.4 && tmdb["vote_count"] as? Int == 26_280)
        #expect(tmdb["popularity"] as? Double == 61.416 && tmdb["runtime"] as? Int == 139)
        #expect(tmdb["collection"] is NSNull)
        #expect(tmdb["fetched_at"] as? String == Timestamp.format(now - day))
    }

    @Test func aNegativeAnswerShowsAsNoEntryAndANullKey() async throws {
        let store = try await cache()
        try await store.write(WriteBatch(films: [SampleFilms.film("tt0000404")]))
        let side = try #require(try await TMDbSide.load("tt0000404", from: store))
        #expect(side == .notOnTMDb(checkedAt: now - 2 * day))
        let checked = String(Timestamp.format(now - 2 * day).prefix(10))
        #expect(TMDbFilmText.human(side) == "TMDb: no entry (checked \(checked))")
        let film = try #require(try await store.film("tt0000404"))
        let json = TMDbFilmText.json(imdbID: "tt0000404", film: film, tmdb: side)
        #expect(json.hasSuffix(",\n  \"tmdb\": null\n}\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["tmdb"] is NSNull && object["imdbID"] as? String == "tt0000404")
    }

    @Test func anIDOnlyTMDbHoldsIsTheEntryUnderItsIMDbID() async throws {
        let store = try await cache()
        #expect(try await store.film("tt5753856") == nil)
        let side = try await TMDbSide.load("tt5753856", from: store)
        let json = TMDbFilmText.json(imdbID: "tt5753856", film: nil, tmdb: side)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["imdbID", "tmdb"] && object["imdbID"] as? String == "tt5753856")
        let tmdb = try #require(object["tmdb"] as? [String: Any])
        #expect(tmdb["media_type"] as? String == "tv" && tmdb["genres"] as? [String] == [])
        #expect(json.hasPrefix("{\n  \"imdbID\": \"tt5753856\",\n  \"tmdb\": {\n"))
    }

    @Test func aFilmWithoutTMDbDataPrintsExactlyTheCanonicalForm() async throws {
        let store = try await cache()
        try await store.write(WriteBatch(films: [SampleFilms.film("tt0172495"), SampleFilms.film("tt0000777")]))
        let gladiator = try #require(try await store.film("tt0172495"))
        #expect(try await TMDbSide.load("tt0172495", from: store) == nil)
        #expect(TMDbFilmText.json(imdbID: "tt0172495", film: gladiator, tmdb: nil) == FilmText.json(gladiator))
        let named = try #require(try await TMDbSide.load("tt0000777", from: store))
        #expect(named == .unfetched(TMDbRef(.movie, 777), checkedAt: now - day))
        let film = try #require(try await store.film("tt0000777"))
        #expect(TMDbFilmText.json(imdbID: "tt0000777", film: film, tmdb: named) == FilmText.json(film))
        #expect(TMDbFilmText.human(named).hasPrefix("TMDb: movie:777, not fetched yet"))
    }

    // MARK: - stats

    @Test func statsCountTMDbsSide() async throws {
        let store = try await cache()
        _ = try await store.markTMDbChanged([TMDbRef(.movie, 550)])
        try await store.countTMDbCalls(["find": 3, "details": 2], day: TMDbFilmText.day(now))
        try await store.countTMDbCalls(["details": 5], day: TMDbFilmText.day(now - 3 * day))
        try await store.countTMDbCalls(["details": 100], day: TMDbFilmText.day(now - 8 * day))
        try await store.setTMDbChangesSynced(through: now - 2 * day)
        let stats = try await CacheStats.load(
            store: store, database: "memory", file: nil, settings: PlanSettings(), worklist: nil, now: now,
            tmdb: store, tmdbTTL: 30 * day)
        let t = try #require(stats.tmdb)
        #expect(t.census == TMDbCensus(movies: 1, series: 1, stale: 1, changed: 1, mapped: 3, notOnTMDb: 1))
        #expect(t.callsToday == 5 && t.callsLastWeek == 10, "8 days back is out of the week")
        #expect(t.feedSyncedThrough == now - 2 * day)

        let text = StatsReport.text(stats)
        let section = try #require(text.components(separatedBy: "\nTMDb (TTL 30 d").last)
        #expect(section.contains("  entries          2  movies 1, series 1"))
        #expect(section.contains("  stale            1  fetched more than 30 d ago"))
        #expect(section.contains("  changed          1  named by TMDb's changes feed"))
        #expect(section.contains("  mapped           3  ") && section.contains("  not on TMDb      1  "))
        #expect(section.contains("  calls today      5  ") && section.contains("  calls, 7 days   10  "))
        #expect(section.contains("changes feed read through " + Timestamp.format(now - 2 * day)))

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(StatsReport.json(stats).utf8)) as? [String: Any])
        let tmdb = try #require(json["tmdb"] as? [String: Any])
        #expect(tmdb["entries"] as? Int == 2 && tmdb["movies"] as? Int == 1 && tmdb["series"] as? Int == 1)
        #expect(tmdb["stale"] as? Int == 1 && tmdb["changed"] as? Int == 1 && tmdb["notOnTMDb"] as? Int == 1)
        #expect(tmdb["callsToday"] as? Int == 5 && tmdb["callsLast7Days"] as? Int == 10)
        #expect(tmdb["changesSyncedThrough"] as? String == Timestamp.format(now - 2 * day))
    }

    @Test func statsOfACacheWithoutTMDbDataAreUnchanged() async throws {
        let store = MemoryBackend(wall: .fixed(now))
        try await store.write(WriteBatch(films: [SampleFilms.film("tt0172495", fetchedAt: now - day)]))
        func load(_ tmdb: (any TMDbStore)?) async throws -> CacheStats {
            try await CacheStats.load(
                store: store, database: "memory", file: nil, settings: PlanSettings(), worklist: nil, now: now,
                tmdb: tmdb)
        }
        let without = try await load(nil)
        let empty = try await load(store)
        #expect(empty.tmdb == nil)
        #expect(StatsReport.text(empty) == StatsReport.text(without) && !StatsReport.text(empty).contains("TMDb"))
        #expect(StatsReport.json(empty) == StatsReport.json(without) && !StatsReport.json(empty).contains("tmdb"))
    }

    // MARK: - plan

    @Test func planCountsEachState() async throws {
        let store = MemoryBackend(wall: .fixed(now))
        let ttl = 30 * day
        let film = { (id: Int, age: TimeInterval) in
            TMDbFilm(ref: TMDbRef(.movie, id), imdbID: nil, title: "t\(id)", body: [], fetchedAt: self.now - age)
        }
        _ = try await store.writeTMDb(
            TMDbBatch(
                mappings: [
                    TMDbMapping(imdbID: "tt0000001", ref: TMDbRef(.movie, 1), checkedAt: now - day),  // fresh
                    TMDbMapping(imdbID: "tt0000002", ref: TMDbRef(.movie, 2), checkedAt: now - day),  // stale
                    TMDbMapping(imdbID: "tt0000003", ref: TMDbRef(.movie, 3), checkedAt: now - day),  // changed
                    TMDbMapping(imdbID: "tt0000004", ref: TMDbRef(.movie, 4), checkedAt: now - day),  // missing
                    TMDbMapping(imdbID: "tt0000005", ref: nil, checkedAt: now - day),  // not on TMDb
                    TMDbMapping(imdbID: "tt0000006", ref: nil, checkedAt: now - 40 * day),  // to resolve again
                ],
                films: [film(1, day), film(2, 31 * day), film(3, day)]))
        _ = try await store.markTMDbChanged([TMDbRef(.movie, 3)])
        let worklist = Worklist(ids: (1...7).map { "tt000000\($0)" })  // tt0000007: never asked
        let night = try await TMDbNightPlan.make(worklist: worklist, store: store, ttl: ttl, findTTL: ttl, now: now)
        let p = night.plan
        #expect(p.considered == 7 && p.fresh == 1 && p.notOnTMDb == 1)
        #expect(p.toResolve == ["tt0000006", "tt0000007"])
        #expect(p.toFetch.map(\.imdbID) == ["tt0000002", "tt0000003", "tt0000004"])
        #expect(p.missing == 1 && p.stale == 1 && p.changed == 1 && p.calls == 5)

        let text = TMDbPlanReport.text(night)
        #expect(text.hasPrefix("TMDb (dry run, no TMDb call)\n"))
        #expect(text.contains("  considered    7  distinct IDs in the worklists"))
        #expect(text.contains("  to resolve    2  ") && text.contains("  not on TMDb   1  "))
        #expect(text.contains("  to fetch      3  missing 1, stale 1, changed 1"))
        #expect(text.contains("  calls         5  "))
        let alone = PlanReport.text(night, files: worklist.files, database: "memory")
        #expect(alone.hasPrefix("filmcache plan → memory\n") && alone.hasSuffix(text))

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(TMDbPlanReport.json(night, ids: true).utf8)) as? [String: Any])
        let tmdb = try #require(json["tmdb"] as? [String: Any])
        #expect(tmdb["toResolve"] as? Int == 2 && tmdb["toFetch"] as? Int == 3 && tmdb["calls"] as? Int == 5)
        #expect(tmdb["toResolveIDs"] as? [String] == ["tt0000006", "tt0000007"])
        let entries = try #require(tmdb["toFetchEntries"] as? [[String: String]])
        #expect(entries.map { $0["tmdb"] } == ["movie:2", "movie:3", "movie:4"])
    }

    @Test func planAddsTMDbAfterOMDbOnlyWhenAsked() async throws {
        let store = MemoryBackend(wall: .fixed(now))
        let worklist = Worklist(ids: ["tt0000001", "tt0000002"])
        let omdb = try await NightPlan.make(
            worklist: worklist, store: store, settings: PlanSettings(), keyFingerprint: nil, now: now)
        let tmdb = try await TMDbNightPlan.make(
            worklist: worklist, store: nil, ttl: 30 * day, findTTL: 30 * day, now: now)
        #expect(tmdb.plan.toResolve == ["tt0000001", "tt0000002"], "no TMDb store: every ID is to resolve")
        let plain = PlanReport.text(omdb, keyFingerprint: nil, database: "memory")
        let both = PlanReport.text(omdb, keyFingerprint: nil, database: "memory", tmdb: tmdb)
        #expect(both == plain + "\n\n" + TMDbPlanReport.text(tmdb))
        let plainJSON = PlanReport.json(omdb, keyFingerprint: nil, ids: false)
        #expect(!plainJSON.contains("tmdb"))
        let bothJSON = try #require(
            try JSONSerialization.jsonObject(
                with: Data(PlanReport.json(omdb, keyFingerprint: nil, ids: false, tmdb: tmdb).utf8))
                as? [String: Any])
        let section = try #require(bothJSON["tmdb"] as? [String: Any])
        #expect(section["toResolve"] as? Int == 2 && section["toResolveIDs"] == nil)
        #expect(bothJSON["considered"] as? Int == 2)
    }

    // MARK: - warm summary

    func tmdbSummary() -> TMDbWarmSummary {
        var t = TMDbWarmSummary()
        t.considered = 120
        t.fresh = 80
        t.resolved = 30
        t.notOnTMDb = 4
        t.fetched = 35
        t.changedRefreshed = 6
        t.notFound = 1
        t.failed = 2
        t.deferred = 3
        t.calls = ["find": 30, "details": 40, "changes": 2]
        t.rateLimited = 1
        t.feedMarked = 6
        t.feed = "read"
        return t
    }

    @Test func theSummaryPrintsTMDbsLinesBeforeTheOutcome() throws {
        var s = WarmSummary()
        s.considered = 120
        let plain = SummaryReport.text(s, keyFingerprint: "abcd", database: "films.sqlite")
        #expect(!plain.contains("TMDb"))
        s.tmdb = tmdbSummary()
        let text = SummaryReport.text(s, keyFingerprint: "abcd", database: "films.sqlite")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.last == "done")
        let start = try #require(lines.firstIndex(of: "TMDb"))
        let tmdb = lines[start...].joined(separator: "\n")
        #expect(tmdb.contains("  considered       120  distinct IDs in the worklists"))
        #expect(tmdb.contains("  fresh, skipped    80  "))
        #expect(tmdb.contains("  resolved          30  asked TMDb's /find; 4 not on TMDb (recorded)"))
        #expect(tmdb.contains("  fetched           35  stored; 6 named by the changes feed"))
        #expect(tmdb.contains("  not found          1  ") && tmdb.contains("  failed             2  "))
        #expect(tmdb.contains("  deferred           3  "))
        #expect(tmdb.contains("  TMDb calls        72  changes 2, details 40, find 30"))
        #expect(tmdb.contains("  rate limited       1  429 answers"))
        #expect(tmdb.contains("  changes feed: read since the last run; 6 stored entries named"))
        #expect(text.hasPrefix(String(plain.dropLast("done".count))), "OMDb's lines come first, unchanged")
    }

    @Test(arguments: [
        ("first-run", "not read: no run before this one: TTLs decide"),
        ("too-old", "the last run is older than the 90 days the changes feed is read back: TTLs decide"),
        ("failed", "could not be read: TTLs decide; the next run reads it again"),
    ])
    func theFeedStatusSaysWhatDecides(feed: String, says: String) {
        var s = WarmSummary()
        var t = TMDbWarmSummary()
        t.feed = feed
        t.stopDetail = "interrupted"
        s.tmdb = t
        let text = SummaryReport.text(s, keyFingerprint: "abcd", database: "films.sqlite")
        #expect(text.contains("changes feed: ") && text.contains(says))
        #expect(text.contains("TMDb stopped early: interrupted"))
        #expect(!text.contains("rate limited") && !text.contains("deferred"), "zero extras print no line")
    }

    @Test func theSummaryJSONHasTMDbOnlyWhenTheWarmReadIt() throws {
        var s = WarmSummary()
        s.fetched = 3
        #expect(!SummaryReport.json(s).contains("tmdb"))
        s.tmdb = tmdbSummary()
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(SummaryReport.json(s).utf8)) as? [String: Any])
        #expect(json["fetched"] as? Int == 3)
        let tmdb = try #require(json["tmdb"] as? [String: Any])
        #expect(tmdb["fetched"] as? Int == 35 && tmdb["changedRefreshed"] as? Int == 6)
        #expect(tmdb["totalCalls"] as? Int == 72 && (tmdb["calls"] as? [String: Int])?["find"] == 30)
        #expect(tmdb["feed"] as? String == "read" && tmdb["stopDetail"] is NSNull)
    }

    // MARK: - quota

    @Test func quotaShowsTMDbCallsPerDayWhenAnyWereCounted() async throws {
        let store = MemoryBackend(wall: .fixed(now))
        let status = try await QuotaStatus.load(store: store, keyFingerprint: nil, settings: PlanSettings(), now: now)
        let none = try await TMDbCallHistory.load(store: store, now: now)
        #expect(none.isEmpty)
        #expect(
            QuotaReport.text(status, database: "memory", tmdb: none) == QuotaReport.text(status, database: "memory"))
        #expect(QuotaReport.json(status, tmdb: none) == QuotaReport.json(status))

        try await store.countTMDbCalls(["find": 4, "details": 9], day: TMDbFilmText.day(now))
        try await store.countTMDbCalls(["details": 7], day: TMDbFilmText.day(now - 2 * day))
        try await store.countTMDbCalls(["details": 50], day: TMDbFilmText.day(now - 40 * day))
        let history = try await TMDbCallHistory.load(store: store, now: now)
        #expect(history.days.map(\.total) == [7, 13], "40 days back is out of the 30")
        let text = QuotaReport.text(status, database: "memory", tmdb: history)
        let section = try #require(text.components(separatedBy: "\nTMDb calls per UTC day").last)
        #expect(section.contains("  today \(TMDbFilmText.day(now)): 13 (details 9, find 4)"))
        #expect(section.contains("  \(TMDbFilmText.day(now - 2 * day))   7  details 7"))

        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(QuotaReport.json(status, tmdb: history).utf8))
                as? [String: Any])
        let tmdb = try #require(json["tmdb"] as? [String: Any])
        #expect(tmdb["todayCalls"] as? Int == 13 && (tmdb["todayByKind"] as? [String: Int])?["find"] == 4)
        #expect((tmdb["history"] as? [[String: Any]])?.compactMap { $0["calls"] as? Int } == [7, 13])
    }

    // MARK: - metrics

    /// Every sample by series, from a parse that enforces the format.
    func values(_ text: String) throws -> [String: Double] {
        var values: [String: Double] = [:]
        for family in try PrometheusTextParser.parse(text) {
            for sample in family.samples {
                values[MetricFamily.series(sample.name, sample.labels)] = sample.value
            }
        }
        return values
    }

    @Test func theMetricsFileCarriesTMDbsFamilies() async throws {
        let store = try await cache()
        try await store.setTMDbChangesSynced(through: now - day)
        var summary = WarmSummary()
        summary.tmdb = tmdbSummary()
        let metrics = try await WarmMetrics.read(
            from: store, summary: summary, exitStatus: 0, duration: .seconds(3), keyFingerprint: "abcd",
            settings: PlanSettings(), now: now, tmdb: store)
        let first = MetricsTextfile.render(metrics)
        let v = try values(first)
        #expect(v[#"filmcache_tmdb_calls_total{kind="find"}"#] == 30)
        #expect(v[#"filmcache_tmdb_calls_total{kind="details"}"#] == 40)
        #expect(v[#"filmcache_tmdb_calls_total{kind="changes"}"#] == 2)
        #expect(v["filmcache_tmdb_entries_fetched_total"] == 35 && v["filmcache_tmdb_rate_limited_total"] == 1)
        #expect(v[#"filmcache_tmdb_last_run_calls{kind="details"}"#] == 40)
        #expect(v["filmcache_tmdb_last_run_fetched"] == 35 && v["filmcache_tmdb_last_run_deferred"] == 3)
        #expect(v["filmcache_tmdb_last_run_failed"] == 2 && v["filmcache_tmdb_last_run_not_found"] == 1)
        #expect(v["filmcache_tmdb_plan_considered"] == 120 && v["filmcache_tmdb_plan_fresh"] == 80)
        #expect(v[#"filmcache_tmdb_entries{media_type="movie"}"#] == 1)
        #expect(v[#"filmcache_tmdb_entries{media_type="tv"}"#] == 1)
        #expect(v["filmcache_tmdb_not_on_tmdb"] == 1)
        #expect(v["filmcache_tmdb_changes_synced_timestamp_seconds"] == (now - day).timeIntervalSince1970)
        #expect(first.contains("# TYPE filmcache_tmdb_calls_total counter\n"))

        // The next run reads no TMDb: the counters carry on, the run's gauges are gone.
        let omdbOnly = try await WarmMetrics.read(
            from: store, summary: WarmSummary(), exitStatus: 0, duration: .seconds(1), keyFingerprint: "abcd",
            settings: PlanSettings(), now: now, tmdb: store)
        let next = try values(MetricsTextfile.render(omdbOnly, previous: first))
        #expect(next[#"filmcache_tmdb_calls_total{kind="find"}"#] == 30)
        #expect(next["filmcache_tmdb_entries_fetched_total"] == 35)
        #expect(next["filmcache_tmdb_last_run_fetched"] == nil)
        // And a third run that reads TMDb adds to them.
        let third = try values(
            MetricsTextfile.render(metrics, previous: MetricsTextfile.render(omdbOnly, previous: first)))
        #expect(third[#"filmcache_tmdb_calls_total{kind="find"}"#] == 60)
        #expect(third["filmcache_tmdb_rate_limited_total"] == 2)
    }

    @Test func theMetricsFileOfACacheWithoutTMDbHasNoTMDbFamily() async throws {
        let store = MemoryBackend(wall: .fixed(now))
        var summary = WarmSummary()
        summary.fetched = 2
        let withStore = try await WarmMetrics.read(
            from: store, summary: summary, exitStatus: 0, duration: .seconds(1), keyFingerprint: "abcd",
            settings: PlanSettings(), now: now, tmdb: store)
        let without = try await WarmMetrics.read(
            from: store, summary: summary, exitStatus: 0, duration: .seconds(1), keyFingerprint: "abcd",
            settings: PlanSettings(), now: now)
        let text = MetricsTextfile.render(withStore)
        #expect(text == MetricsTextfile.render(without) && !text.contains("tmdb"))
    }
}
