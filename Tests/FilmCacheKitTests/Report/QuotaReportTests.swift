import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// `filmcache quota` over the crafted ledger of ``ReportFixtures``.
@Suite struct QuotaReportTests {
    let dir = TemporaryDirectory()

    /// The status read from a fresh fixture database.
    func status(
        key: String? = nil, zone: String = "UTC", limit: Int? = nil, at now: Date = ReportFixtures.now
    ) async throws -> QuotaStatus {
        let store = try ReportFixtures.store(at: dir.file("cache.sqlite"))
        var settings = PlanSettings()
        settings.quotaTimeZone = TestDates.zone(zone)
        return try await QuotaStatus.load(
            store: SQLiteBackend(store: store), keyFingerprint: key, settings: settings, dailyLimit: limit, now: now)
    }

    @Test func withoutAKeyTheBusiestKeyOfTheDayIsShown() async throws {
        let s = try await status()
        #expect(s.keyFingerprint == "ab12" && s.keyInLedger && s.otherKeys == ["cd34"])
        #expect(s.used == 120 && s.budget.limit == 1_000 && s.budget.reserve == 50 && s.left == 830)
        #expect(s.exhaustedAt == nil)
        #expect(s.nextReset == TestDates.utc(2026, 11, 22))
        #expect(s.history.count == 30)
        #expect(s.history.first?.day == "2026-10-23" && s.history.last?.day == "2026-11-21")
        let total = s.history.map(\.used).reduce(0, +)
        #expect(total == 1_971, "950 + 400 + 1 + 500 + 120")
        #expect(s.observedResets == [TestDates.utc(2026, 10, 21, 0, 7, 30), TestDates.utc(2026, 11, 2, 0, 5)])
        #expect(s.runs.map(\.outcome) == ["limit-reached", "done", nil], "the window's runs of the key, oldest first")
    }

    @Test func aChosenKeyIsShownEvenWhenTheLedgerDoesNotKnowIt() async throws {
        let other = try await status(key: "cd34")
        #expect(other.used == 30 && other.otherKeys == ["ab12"] && other.observedResets.isEmpty)
        #expect(other.runs.count == 1 && other.runs[0].completed == false)
        let unknown = try await status(key: "ffff")
        #expect(!unknown.keyInLedger && unknown.used == 0 && unknown.runs.isEmpty)
        #expect(QuotaReport.text(unknown, database: "c.sqlite").contains("key ffff, not in the ledger yet"))
    }

    @Test func theTextShowsTodayTheChartAndTheRuns() async throws {
        let text = QuotaReport.text(try await status(), database: "films.sqlite")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "filmcache quota → films.sqlite (key ab12; quota day 2026-11-21, UTC)")
        #expect(lines.contains("  used             120  calls counted today, each before it was sent"))
        #expect(lines.contains("  left             830  calls usable today"))
        #expect(lines.contains("  resets at       2026-11-22 00:00 UTC (in 8h 30m)"))
        #expect(
            lines.contains(
                "  observed reset  00:05 UTC on 2026-11-02 (latest); 2 seen, between 00:05 and 00:07"))
        #expect(lines.contains("  other keys in the ledger: cd34 (pick one with --key)"))
        // One row a day; a full bar (40 cells) is the limit, so 400 calls is 16 cells and 1 call an eighth.
        #expect(lines.contains("  2026-11-01  400  !  " + String(repeating: "█", count: 16)))
        #expect(lines.contains("  2026-10-25  950     " + String(repeating: "█", count: 38)))
        #expect(lines.contains("  2026-11-10    1     ▏"))
        #expect(lines.contains("  2026-11-09    0"))
        #expect(lines.filter { $0.hasPrefix("  2026-") && $0.dropFirst(12).first == " " }.count == 30)
        #expect(lines.contains("  started               calls  fetched  not found  failed  outcome"))
        #expect(lines.contains("  2026-11-01T02:00:00Z    400      390          9       0  limit-reached"))
        #expect(
            lines.contains("  2026-11-21T02:00:00Z      0        0          0       0  unfinished (running, or killed)")
        )
        #expect(!text.contains("2026-10-19T02:00:00Z"), "runs before the window are left out")
    }

    @Test func wallTimesAreInTheQuotaTimeZone() async throws {
        let s = try await status(zone: "America/Los_Angeles")
        #expect(s.today.key == "2026-11-21" && s.nextReset == TestDates.utc(2026, 11, 22, 8))
        let text = QuotaReport.text(s, database: "c.sqlite")
        #expect(text.contains("resets at       2026-11-22 00:00 America/Los_Angeles (in 16h 30m)"))
        #expect(text.contains("16:05 America/Los_Angeles on 2026-11-01 (latest)"))
    }

    @Test func anExhaustedDayLeavesNothingAndSaysWhen() async throws {
        let s = try await status(at: TestDates.utc(2026, 11, 1, 19))
        #expect(s.used == 400 && s.left == 0 && s.exhaustedAt == TestDates.utc(2026, 11, 1, 18))
        #expect(
            QuotaReport.text(s, database: "c.sqlite").contains(
                "exhausted at    2026-11-01 18:00 UTC: OMDb said the limit is reached; no call until the reset"))
        let prometheus = try PrometheusTextParser.parse(QuotaReport.prometheus(s))
        #expect(prometheus.first { $0.name == "filmcache_quota_exhausted" }?.samples.first?.value == 1)
    }

    @Test func theLimitFlagWinsOverTheLedger() async throws {
        let s = try await status(limit: 100_000)
        #expect(s.budget.limit == 100_000 && s.budget.reserve == 5_000 && s.left == 100_000 - 5_000 - 120)
    }

    @Test func theJSONCarriesEveryFieldWithNullsForAbsentInstants() async throws {
        let data = Data(QuotaReport.json(try await status()).utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        for key in [
            "day", "used", "limit", "reserve", "left", "exhaustedAt", "observedResetAt", "history", "runs", "key",
            "resetsAt", "timeZone",
        ] {
            #expect(object.keys.contains(key), "\(key)")
        }
        #expect(object["day"] as? String == "2026-11-21")
        #expect(object["used"] as? Int == 120 && object["left"] as? Int == 830 && object["reserve"] as? Int == 50)
        #expect(object["exhaustedAt"] is NSNull)
        #expect(object["observedResetAt"] as? String == "2026-11-02T00:05:00Z")
        #expect(object["observedResetTime"] as? String == "00:05")
        #expect(object["resetsAt"] as? String == "2026-11-22T00:00:00Z")
        let history = try #require(object["history"] as? [[String: Any]])
        #expect(history.count == 30)
        let spent = try #require(history.first { $0["day"] as? String == "2026-11-01" })
        #expect(spent["used"] as? Int == 400 && spent["exhaustedAt"] as? String == "2026-11-01T18:00:00Z")
        #expect(spent["resetObservedAt"] as? String == "2026-11-02T00:05:00Z")
        let idle = try #require(history.first { $0["day"] as? String == "2026-11-09" })
        #expect(idle["limit"] is NSNull && idle["used"] as? Int == 0)
        let runs = try #require(object["runs"] as? [[String: Any]])
        #expect(runs.count == 3 && runs.last?["outcome"] is NSNull && runs.last?["finishedAt"] is NSNull)
        #expect(runs.first?["calls"] as? Int == 400 && runs.first?["notFound"] as? Int == 9)
    }

    @Test func thePrometheusFormIsValidAndLabelledWithTheKey() async throws {
        let families = try PrometheusTextParser.parse(QuotaReport.prometheus(try await status()))
        var values: [String: Double] = [:]
        for family in families {
            #expect(family.type == "gauge" && family.help?.isEmpty == false)
            for sample in family.samples {
                #expect(sample.labels == ["key": "ab12"])
                values[sample.name] = sample.value
            }
        }
        #expect(values["filmcache_quota_used"] == 120)
        #expect(values["filmcache_quota_limit"] == 1_000)
        #expect(values["filmcache_quota_reserve"] == 50)
        #expect(values["filmcache_quota_left"] == 830)
        #expect(values["filmcache_quota_exhausted"] == 0)
        #expect(values["filmcache_quota_reset_timestamp_seconds"] == TestDates.utc(2026, 11, 22).timeIntervalSince1970)
        #expect(
            values["filmcache_quota_observed_reset_timestamp_seconds"]
                == TestDates.utc(2026, 11, 2, 0, 5).timeIntervalSince1970)
    }

    @Test func anEmptyLedgerReportsZerosAndNoKey() async throws {
        let store = try CacheStore(path: dir.file("empty.sqlite"), logger: SampleFilms.logger)
        let s = try await QuotaStatus.load(
            store: SQLiteBackend(store: store), keyFingerprint: nil, settings: PlanSettings(), now: ReportFixtures.now)
        #expect(s.keyFingerprint == nil && s.used == 0 && s.left == 950 && s.runs.isEmpty)
        let text = QuotaReport.text(s, database: "e.sqlite")
        #expect(text.contains("no key in the ledger yet") && text.contains("none seen yet"))
        let families = try PrometheusTextParser.parse(QuotaReport.prometheus(s))
        #expect(
            families.first { $0.name == "filmcache_quota_observed_reset_timestamp_seconds" }?.samples.isEmpty == true)
        #expect(families.first { $0.name == "filmcache_quota_used" }?.samples.first?.labels == [:])
    }
}
