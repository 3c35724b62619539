import Foundation
import Testing

/// `quota`, `stats`, `plan` and `show` of the built binary, byte for byte against files in `Golden/`.
///
/// The database comes from three real warms against `omdb-standin`, each at an instant pinned
/// with `FILMCACHE_NOW` (the executable's testing aid), so fetch times, quota days and runs are
/// the same on every run: on 2026-11-05 OMDb's limit stops the first warm after 40 calls; on
/// 2026-11-06 a 100-call limit stops the second (its first answer is the observed reset); on
/// 2026-11-21 a 150-call limit stops the third, leaving some missing and some stale. The reports
/// are read at 2026-11-21 12:00 UTC. Only the database path and the file sizes are masked.
/// Set `FILMCACHE_RECORD_GOLDEN=1` to rewrite the golden files after an intended change.
@Suite(.serialized) struct ReportEndToEndTests {
    /// The golden files, found from this source file so the test reads the tree it was built from.
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    /// The key the warms use.
    static let key = "test-key-e2e"
    /// When the reports are read.
    static let readAt = "2026-11-21T12:00:00Z"
    /// Whether to rewrite the golden files instead of comparing.
    static var recording: Bool { ProcessInfo.processInfo.environment["FILMCACHE_RECORD_GOLDEN"] == "1" }

    /// The database the reports read, built once for the suite.
    static let fixture = Result { try Fixture() }

    /// Each golden file and the command line that prints it (`$DB` and `$WATCHLIST` filled in).
    static let cases: [(file: String, arguments: [String])] = [
        ("quota.txt", ["quota", "--db", "$DB"]),
        ("quota.json", ["quota", "--db", "$DB", "--json"]),
        ("stats.txt", ["stats", "--db", "$DB"]),
        ("stats.json", ["stats", "--db", "$DB", "--json", "$WATCHLIST"]),
        ("plan.txt", ["plan", "--db", "$DB", "--daily-limit", "150", "$WATCHLIST"]),
        ("plan.json", ["plan", "--db", "$DB", "--daily-limit", "150", "--json", "--ids", "$WATCHLIST"]),
        ("show.txt", ["show", "tt0102748", "--db", "$DB"]),
        ("show.json", ["show", "tt0102748", "--db", "$DB", "--json"]),
    ]

    @Test("The report matches its golden file", arguments: cases)
    func matchesGolden(_ file: String, _ arguments: [String]) throws {
        let fixture = try Self.fixture.get()
        let out = try fixture.filmcache(arguments, environment: ["FILMCACHE_NOW": Self.readAt])
        #expect(out.status == 0, "\(out.stderr)")
        let text = Self.mask(out.stdout, database: fixture.db).replacingOccurrences(
            of: fixture.watchlist, with: "$WATCHLIST")
        let url = Self.golden.appendingPathComponent(file)
        if Self.recording {
            try Data(text.utf8).write(to: url)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(
            text == expected,
            "\(file) changed; re-record with FILMCACHE_RECORD_GOLDEN=1 if intended:\n\(text)")
    }

    /// The output with what varies from run to run masked: the database path and the file sizes
    /// (the worklist's path, which varies with the checkout, is masked by the caller).
    static func mask(_ text: String, database: String) -> String {
        var text = text.replacingOccurrences(of: database, with: "$DB")
        text = text.replacingOccurrences(
            of: #"(?m)^  file .*$"#, with: "  file        (sizes vary)", options: .regularExpression)
        return text.replacingOccurrences(
            of: #""(databaseBytes|fileBytes|walBytes)" : [0-9]+"#, with: #""$1" : 0"#, options: .regularExpression)
    }

    @Test func theWarmsEndedAsPlannedAndWroteTheMetricsFile() throws {
        let fixture = try Self.fixture.get()
        #expect(fixture.warms.map(\.status) == [75, 75, 75], "\(fixture.warms.map(\.stderr))")
        let text = try String(contentsOfFile: fixture.metricsFile, encoding: .utf8)
        #expect(text.contains("# TYPE filmcache_calls_total counter\n"))
        #expect(text.contains("filmcache_last_run_exit_status 75\n"))
        #expect(text.contains("filmcache_last_success_timestamp_seconds 1795228200\n"), "2026-11-21T02:30:00Z")
        #expect(text.contains(#"filmcache_quota_used{key="\#(fixture.fingerprint)"} 142"#))
        #expect(text.contains(#"filmcache_calls_total{outcome="limit"} 1"#), "the first warm's last call")
        let films = try BuiltBinaries.sqlite(fixture.db, "SELECT count(*) FROM films")
        let upserted = try BuiltBinaries.sqlite(fixture.db, "SELECT sum(fetched) FROM runs")
        #expect(text.contains("filmcache_films_upserted_total \(upserted)\n") && Int(upserted)! >= Int(films)!)
        let calls = try BuiltBinaries.sqlite(fixture.db, "SELECT sum(used) FROM quota_ledger")
        let counted = text.split(separator: "\n").filter { $0.hasPrefix("filmcache_calls_total{") }
            .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
        #expect(counted == Int(calls), "the counters add up to the ledger over the three warms")
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.dir).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty)
    }

    @Test(.enabled(if: PythonPrometheusParser.isAvailable, Comment(rawValue: PythonPrometheusParser.missing)))
    func prometheusClientReadsTheMetricsFileAndTheQuotaGauges() throws {
        let fixture = try Self.fixture.get()
        let file = try PythonPrometheusParser.parse(String(contentsOfFile: fixture.metricsFile, encoding: .utf8))
        let names = Set(file.map(\.name))
        for name in [
            "filmcache_last_success_timestamp_seconds", "filmcache_calls", "filmcache_films_upserted",
            "filmcache_last_run_duration_seconds", "filmcache_plan_stale", "filmcache_plan_missing",
            "filmcache_last_run_deferred", "filmcache_quota_left",
        ] {
            #expect(names.contains(name), "\(name) in \(names.sorted())")
        }
        #expect(file.first { $0.name == "filmcache_calls" }?.type == "counter")
        #expect(file.first { $0.name == "filmcache_calls" }?.samples.count == 5)

        let quota = try fixture.filmcache(["quota", "--db", fixture.db, "--prometheus"], environment: [:])
        #expect(quota.status == 0)
        let gauges = try PythonPrometheusParser.parse(quota.stdout)
        #expect(gauges.allSatisfy { $0.type == "gauge" } && gauges.count == 7)
        #expect(
            gauges.first { $0.name == "filmcache_quota_observed_reset_timestamp_seconds" }?.samples.first?.labels
                == ["key": fixture.fingerprint])
    }

    @Test func quotaTakesTheKeyFromTheEnvironmentOrByFingerprint() throws {
        let fixture = try Self.fixture.get()
        let env = ["FILMCACHE_NOW": Self.readAt]
        let busiest = try fixture.filmcache(["quota", "--db", fixture.db, "--json"], environment: env)
        let given = try fixture.filmcache(
            ["quota", "--db", fixture.db, "--json"], environment: env.merging(["OMDB_API_KEY": Self.key]) { $1 })
        #expect(given.status == 0 && given.stdout == busiest.stdout)
        #expect(!given.stdout.contains(Self.key) && !given.stderr.contains(Self.key))
        let other = try fixture.filmcache(["quota", "--db", fixture.db, "--key", "ffff"], environment: env)
        #expect(other.status == 64, "a fingerprint naming no key in the ledger is refused")
        #expect(other.stderr.contains("--key names no key in the ledger; its keys: \(fixture.fingerprint)"))
        let short = try fixture.filmcache(
            ["quota", "--db", fixture.db, "--json", "--key", String(fixture.fingerprint.prefix(6))], environment: env)
        #expect(short.status == 0 && short.stdout == busiest.stdout, "the first digits are enough")
        let secret = try fixture.filmcache(["quota", "--db", fixture.db, "--key", Self.key], environment: env)
        #expect(secret.status == 64 && !secret.stderr.contains(Self.key), "a key given as --key is not echoed")
        let both = try fixture.filmcache(["quota", "--db", fixture.db, "--json", "--prometheus"], environment: env)
        #expect(both.status == 64 && both.stderr.contains("exclude each other"))
        let absent = try fixture.filmcache(["stats", "--db", fixture.dir + "/absent.sqlite"], environment: env)
        #expect(absent.status == 0 && absent.stdout.contains("no database file yet"))
        #expect(!FileManager.default.fileExists(atPath: fixture.dir + "/absent.sqlite"), "reading creates nothing")
        let badNow = try fixture.filmcache(["stats", "--db", fixture.db], environment: ["FILMCACHE_NOW": "tomorrow"])
        #expect(badNow.status == 78 && badNow.stderr.contains("FILMCACHE_NOW"))
    }

    @Test func warmRefusesAMetricsFileInAMissingDirectoryBeforeSpendingAnything() throws {
        let fixture = try Self.fixture.get()
        let out = try fixture.filmcache(
            ["warm", "--db", fixture.db, "--metrics-file", fixture.dir + "/no/such/m.prom", fixture.watchlist],
            environment: ["OMDB_API_KEY": Self.key])
        #expect(out.status == 78 && out.stderr.contains("m.prom: no directory"), "\(out.stderr)")
    }

    /// Three warms at pinned instants into one database, with a metrics file.
    final class Fixture: Sendable {
        /// A fresh directory for the database and the metrics file.
        let dir = NSTemporaryDirectory() + "filmcache-reports-" + UUID().uuidString
        /// The database.
        var db: String { dir + "/cache.sqlite" }
        /// The metrics file the warms write.
        var metricsFile: String { dir + "/filmcache.prom" }
        /// The sample watchlist.
        let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
        /// The key's fingerprint as reports show it (the ledger's in full begins with it).
        let fingerprint: String
        /// What each warm left behind.
        let warms: [BuiltBinaries.Output]

        /// Runs the three warms.
        init() throws {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let limited = try StandInProcess(arguments: ["--daily-limit", "40"])
            let open = try StandInProcess()
            let runs: [(String, StandInProcess, [String])] = [
                ("2026-11-05T02:00:00Z", limited, ["--max-in-flight", "1"]),
                ("2026-11-06T03:10:00Z", open, ["--daily-limit", "100"]),
                ("2026-11-21T02:30:00Z", open, ["--daily-limit", "150"]),
            ]
            let dir = dir
            warms = try runs.map { at, standIn, flags in
                try BuiltBinaries.run(
                    "filmcache",
                    ["warm", "--db", dir + "/cache.sqlite", "--rate", "0", "--base-url", standIn.baseURL]
                        + flags + [
                            "--metrics-file", dir + "/filmcache.prom",
                            BuiltBinaries.packageRoot + "/Data/watchlist.txt",
                        ],
                    environment: ["OMDB_API_KEY": ReportEndToEndTests.key, "FILMCACHE_NOW": at])
            }
            fingerprint = String(
                try BuiltBinaries.sqlite(dir + "/cache.sqlite", "SELECT DISTINCT key_fingerprint FROM runs").prefix(12))
        }

        /// Runs the built `filmcache` with `arguments`, `$DB` and `$WATCHLIST` filled in.
        func filmcache(_ arguments: [String], environment: [String: String]) throws -> BuiltBinaries.Output {
            try BuiltBinaries.run(
                "filmcache",
                arguments.map { $0 == "$DB" ? db : $0 == "$WATCHLIST" ? watchlist : $0 },
                environment: environment)
        }
    }
}
