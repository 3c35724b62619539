import FilmCachePrometheus
import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// The warm's metrics file: its metrics, counters carried over, the atomic write, escaping.
@Suite struct MetricsFileTests {
    let dir = TemporaryDirectory()
    let finished = TestDates.utc(2026, 11, 21, 3, 0)

    /// A warm summary with calls of every outcome.
    func summary(film: Int = 90, notFound: Int = 5, failed: Int = 2, retried: Int = 7, limit: Int = 0) -> WarmSummary {
        var s = WarmSummary()
        s.considered = 292
        s.fresh = 150
        s.missing = 100
        s.stale = 42
        s.fetched = film
        s.notFound = notFound
        s.failed = failed
        s.deferred = 45
        s.callsByOutcome = [.film: film, .notFound: notFound, .failed: failed, .retried: retried, .limit: limit]
        s.calls = film + notFound + failed + retried + limit
        return s
    }

    /// Metrics for a run with `summary`, the quota read from the fixture database.
    func metrics(_ summary: WarmSummary?, status: Int32 = 0, lastSuccess: Date? = nil) async throws -> WarmMetrics {
        let store = try ReportFixtures.store(at: dir.file("cache.sqlite"))
        var settings = PlanSettings()
        settings.dailyLimit = 1_000
        let quota = try await QuotaStatus.load(
            store: SQLiteBackend(store: store), keyFingerprint: "ab12", settings: settings, dailyLimit: 1_000,
            now: ReportFixtures.now,
            days: 1)
        return WarmMetrics(
            finishedAt: finished, duration: 12.5, exitStatus: status, summary: summary,
            lastSuccessAt: lastSuccess ?? finished, quota: quota)
    }

    /// Every sample by series (`name{label="value"}`), from a parse that enforces the format.
    func values(_ text: String) throws -> [String: Double] {
        var values: [String: Double] = [:]
        for family in try PrometheusTextParser.parse(text) {
            #expect(family.help?.isEmpty == false, "\(family.name) has a HELP line")
            #expect(["gauge", "counter"].contains(family.type), "\(family.name) has a TYPE line")
            for sample in family.samples {
                values[MetricFamily.series(sample.name, sample.labels)] = sample.value
            }
        }
        return values
    }

    @Test func theFileIsValidTextFormatWithEveryDocumentedMetric() async throws {
        let text = MetricsTextfile.render(try await metrics(summary()))
        let v = try values(text)
        #expect(v["filmcache_last_success_timestamp_seconds"] == finished.timeIntervalSince1970)
        #expect(v["filmcache_last_run_timestamp_seconds"] == finished.timeIntervalSince1970)
        #expect(v["filmcache_last_run_duration_seconds"] == 12.5)
        #expect(v["filmcache_last_run_exit_status"] == 0)
        #expect(v[#"filmcache_calls_total{outcome="film"}"#] == 90)
        #expect(v[#"filmcache_calls_total{outcome="not_found"}"#] == 5)
        #expect(v[#"filmcache_calls_total{outcome="failed"}"#] == 2)
        #expect(v[#"filmcache_calls_total{outcome="retried"}"#] == 7)
        #expect(v[#"filmcache_calls_total{outcome="limit"}"#] == 0)
        #expect(v[#"filmcache_last_run_calls{outcome="retried"}"#] == 7)
        #expect(v["filmcache_films_upserted_total"] == 90)
        #expect(v["filmcache_last_run_films_upserted"] == 90)
        #expect(v["filmcache_last_run_deferred"] == 45)
        #expect(v["filmcache_plan_considered"] == 292 && v["filmcache_plan_fresh"] == 150)
        #expect(v["filmcache_plan_missing"] == 100 && v["filmcache_plan_stale"] == 42)
        #expect(v[#"filmcache_quota_used{key="ab12"}"#] == 120)
        #expect(v[#"filmcache_quota_limit{key="ab12"}"#] == 1_000)
        #expect(v[#"filmcache_quota_left{key="ab12"}"#] == 830)

        // docs/METRICS.md names every metric the file holds, with its type.
        let docs = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/METRICS.md").path,
            encoding: .utf8)
        for family in try PrometheusTextParser.parse(text) {
            #expect(docs.contains("`\(family.name)` | \(family.type)"), "docs/METRICS.md lists \(family.name)")
        }
    }

    @Test func countersCarryOverFromTheFileTheyReplace() async throws {
        let path = dir.file("filmcache.prom")
        try MetricsTextfile.write(try await metrics(summary()), to: path)
        try MetricsTextfile.write(
            try await metrics(summary(film: 10, notFound: 0, failed: 0, retried: 1, limit: 3), status: 75), to: path)
        let v = try values(try String(contentsOfFile: path, encoding: .utf8))
        #expect(v[#"filmcache_calls_total{outcome="film"}"#] == 100)
        #expect(v[#"filmcache_calls_total{outcome="retried"}"#] == 8)
        #expect(v[#"filmcache_calls_total{outcome="limit"}"#] == 3)
        #expect(v["filmcache_films_upserted_total"] == 100)
        #expect(v[#"filmcache_last_run_calls{outcome="film"}"#] == 10, "per-run gauges do not add up")
        #expect(v["filmcache_last_run_exit_status"] == 75)
    }

    @Test func aFailedRunKeepsTheCountersAndTheLastSuccessAndOmitsWhatItCannotKnow() async throws {
        let path = dir.file("filmcache.prom")
        try MetricsTextfile.write(try await metrics(summary()), to: path)
        let earlier = TestDates.utc(2026, 11, 20, 3)
        try MetricsTextfile.write(try await metrics(nil, status: 69, lastSuccess: earlier), to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let v = try values(text)
        #expect(v["filmcache_last_run_exit_status"] == 69)
        #expect(v["filmcache_last_success_timestamp_seconds"] == earlier.timeIntervalSince1970)
        #expect(v[#"filmcache_calls_total{outcome="film"}"#] == 90, "carried over unchanged")
        #expect(!text.contains("filmcache_last_run_calls") && !text.contains("filmcache_plan_"))
    }

    @Test func theLastSuccessIsReadFromTheRunsTable() async throws {
        let store = try ReportFixtures.store(at: dir.file("cache.sqlite"))
        // The latest completed run finished 2026-11-20 02:10; the later failed and unfinished runs do not count.
        let m = try await WarmMetrics.read(
            from: SQLiteBackend(store: store), summary: nil, exitStatus: 69, duration: .seconds(3),
            keyFingerprint: "ab12",
            settings: PlanSettings(), now: ReportFixtures.now)
        #expect(m.lastSuccessAt == TestDates.utc(2026, 11, 20, 2, 10))
        #expect(m.duration == 3 && m.quota?.used == 120)
        let empty = try CacheStore(path: dir.file("empty.sqlite"), logger: SampleFilms.logger)
        let none = try await WarmMetrics.read(
            from: SQLiteBackend(store: empty), summary: nil, exitStatus: 0, duration: .zero, keyFingerprint: "ab12",
            settings: PlanSettings(), now: ReportFixtures.now)
        #expect(none.lastSuccessAt == nil)
        #expect(try values(MetricsTextfile.render(none))["filmcache_last_success_timestamp_seconds"] == 0)
    }

    @Test func theWriteReplacesTheFileAtomicallyAndLeavesNoTemporaryFile() async throws {
        let path = dir.file("filmcache.prom")
        try "stale content that is not even metrics\n".write(toFile: path, atomically: false, encoding: .utf8)
        let metrics = try await metrics(summary())
        try MetricsTextfile.write(metrics, to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == MetricsTextfile.render(metrics), "garbage in the old file is not carried over")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(files.contains("filmcache.prom") && !files.contains { $0.hasSuffix(".tmp") })
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o044 } == 0o044, "node_exporter can read it")
    }

    @Test func aWriteIntoAMissingDirectoryFailsWithTheReason() async throws {
        let path = dir.file("no/such/dir/filmcache.prom")
        let metrics = try await metrics(summary())
        #expect {
            try MetricsTextfile.write(metrics, to: path)
        } throws: { error in
            "\(error)".contains("cannot write the metrics file \(path)") && "\(error)".contains("No such file")
        }
    }

    @Test func labelValuesAndHelpAreEscapedAndSpecialValuesWritten() throws {
        let family = MetricFamily(
            "odd_value", .gauge, help: "Help with a \\ backslash\nand a second line.",
            samples: [
                .init(.nan, labels: ["path": #"C:\films"#, "quote": #"say "hi""#]),
                .init(.infinity, labels: ["path": "line\nbreak"]),
                .init(-.infinity, labels: ["path": "b"]),
                .init(0.25, labels: ["path": "c"]),
                .init(1_795_228_200, labels: ["path": "d"]),
            ])
        #expect(
            family.text == #"""
                # HELP odd_value Help with a \\ backslash\nand a second line.
                # TYPE odd_value gauge
                odd_value{path="C:\\films",quote="say \"hi\""} NaN
                odd_value{path="line\nbreak"} +Inf
                odd_value{path="b"} -Inf
                odd_value{path="c"} 0.25
                odd_value{path="d"} 1795228200

                """#)
        let parsed = try PrometheusTextParser.parse(family.text)
        #expect(parsed.first?.help == "Help with a \\ backslash\nand a second line.")
        #expect(parsed.first?.samples.map(\.labels["path"]) == [#"C:\films"#, "line\nbreak", "b", "c", "d"])
        #expect(parsed.first?.samples[0].labels["quote"] == #"say "hi""#)
        #expect(parsed.first?.samples[0].value.isNaN == true)
    }

    @Test func namesFollowTheGrammar() {
        #expect(MetricFamily.isMetricName("filmcache_calls_total") && MetricFamily.isMetricName("a:b_c"))
        #expect(!MetricFamily.isMetricName("9a") && !MetricFamily.isMetricName("a-b") && !MetricFamily.isMetricName(""))
        #expect(MetricFamily.isLabelName("outcome") && !MetricFamily.isLabelName("__name__"))
        #expect(!MetricFamily.isLabelName("a:b"))
    }
}
