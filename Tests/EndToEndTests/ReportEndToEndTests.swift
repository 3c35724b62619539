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
///
/// The same warms fill a SQLite file and a PostgreSQL database, and both must print the same golden
/// files: a report says what the cache holds, not which backend holds it. The database's name
/// (a path, a URL) is masked alike; the `stats` line of file sizes is SQLite's alone and is masked
/// on both (see ``mask(_:database:)``).
@Suite(.serialized) struct ReportEndToEndTests {
    /// The golden files, found from this source file so the test reads the tree it was built from.
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    /// The key the warms use.
    static let key = "test-key-e2e"
    /// When the reports are read.
    static let readAt = "2026-11-21T12:00:00Z"
    /// Whether to rewrite the golden files instead of comparing.
    static var recording: Bool { ProcessInfo.processInfo.environment["FILMCACHE_RECORD_GOLDEN"] == "1" }

    /// The SQLite database the reports read, built once for the suite.
    static let sqliteFixture = Result { try Fixture(.sqlite) }
    /// The PostgreSQL database the reports read, built once for the suite.
    static let postgresFixture = Result { try Fixture(.postgresql) }

    /// The fixture on `backend`.
    static func fixture(_ backend: CacheDatabase.Backend) throws -> Fixture {
        switch backend {
        case .sqlite: try sqliteFixture.get()
        case .postgresql: try postgresFixture.get()
        }
    }

    /// A golden file and the command line that prints it (`$DB` and `$WATCHLIST` filled in).
    struct Case: Sendable, CustomTestStringConvertible {
        /// The file in `Golden/`.
        let file: String
        /// The command line.
        let arguments: [String]

        /// The file's name, as test results show it.
        var testDescription: String { file }
    }

    /// Each golden file and the command line that prints it.
    static let cases: [Case] = [
        Case(file: "quota.txt", arguments: ["quota", "--db", "$DB"]),
        Case(file: "quota.json", arguments: ["quota", "--db", "$DB", "--json"]),
        Case(file: "stats.txt", arguments: ["stats", "--db", "$DB"]),
        Case(file: "stats.json", arguments: ["stats", "--db", "$DB", "--json", "$WATCHLIST"]),
        Case(file: "plan.txt", arguments: ["plan", "--db", "$DB", "--daily-limit", "150", "$WATCHLIST"]),
        Case(
            file: "plan.json",
            arguments: ["plan", "--db", "$DB", "--daily-limit", "150", "--json", "--ids", "$WATCHLIST"]),
        Case(file: "show.txt", arguments: ["show", "tt0102748", "--db", "$DB"]),
        Case(file: "show.json", arguments: ["show", "tt0102748", "--db", "$DB", "--json"]),
    ]

    /// Golden files are recorded from SQLite, and PostgreSQL must match them.
    @Test("The report matches its golden file", arguments: CacheDatabase.Backend.allCases, cases)
    func matchesGolden(_ backend: CacheDatabase.Backend, _ golden: Case) throws {
        let fixture = try Self.fixture(backend)
        let out = try fixture.filmcache(golden.arguments, environment: ["FILMCACHE_NOW": Self.readAt])
        #expect(out.status == 0, "\(out.stderr)")
        let text = Self.mask(out.stdout, database: fixture.db).replacingOccurrences(
            of: fixture.watchlist, with: "$WATCHLIST")
        let file = golden.file
        let url = Self.golden.appendingPathComponent(file)
        if Self.recording {
            guard backend == .sqlite else { return }
            try Data(text.utf8).write(to: url)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(
            text == expected,
            "\(file) on \(backend) changed; re-record with FILMCACHE_RECORD_GOLDEN=1 if intended:\n\(text)")
    }

    /// The output with what varies from run to run masked: the database's path or URL and the file
    /// sizes (the worklist's path, which varies with the checkout, is masked by the caller).
    ///
    /// The sizes line is SQLite's file and write-ahead log, or the size of PostgreSQL's tables; both
    /// become the same line.
    static func mask(_ text: String, database: String) -> String {
        var text = text.replacingOccurrences(of: database, with: "$DB")
        text = text.replacingOccurrences(
            of: #"(?m)^  (file|size) .*$"#, with: "  file        (sizes vary)", options: .regularExpression)
        return text.replacingOccurrences(
            of: #""(databaseBytes|fileBytes|walBytes)" : [0-9]+"#, with: #""$1" : 0"#, options: .regularExpression)
    }

    @Test(arguments: CacheDatabase.Backend.allCases)
    func theWarmsEndedAsPlannedAndWroteTheMetricsFile(_ backend: CacheDatabase.Backend) throws {
        let fixture = try Self.fixture(backend)
        #expect(fixture.warms.map(\.status) == [75, 75, 75], "\(fixture.warms.map(\.stderr))")
        let text = try String(contentsOfFile: fixture.metricsFile, encoding: .utf8)
        #expect(text.contains("# TYPE filmcache_calls_total counter\n"))
        #expect(text.contains("filmcache_last_run_exit_status 75\n"))
        #expect(text.contains("filmcache_last_success_timestamp_seconds 1795228200\n"), "2026-11-21T02:30:00Z")
        #expect(text.contains(#"filmcache_quota_used{key="\#(fixture.fingerprint)"} 142"#))
        #expect(text.contains(#"filmcache_calls_total{outcome="limit"} 1"#), "the first warm's last call")
        let films = try fixture.cache.query("SELECT count(*) FROM films")
        let upserted = try fixture.cache.query("SELECT sum(fetched) FROM runs")
        #expect(text.contains("filmcache_films_upserted_total \(upserted)\n") && Int(upserted)! >= Int(films)!)
        let calls = try fixture.cache.query("SELECT sum(used) FROM quota_ledger")
        let counted = text.split(separator: "\n").filter { $0.hasPrefix("filmcache_calls_total{") }
            .compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
        #expect(counted == Int(calls), "the counters add up to the ledger over the three warms")
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.dir).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty)
    }

    @Test(.enabled(if: PythonPrometheusParser.isAvailable, Comment(rawValue: PythonPrometheusParser.missing)))
    func prometheusClientReadsTheMetricsFileAndTheQuotaGauges() throws {
        let fixture = try Self.fixture(.sqlite)
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
        let fixture = try Self.fixture(.sqlite)
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
        let fixture = try Self.fixture(.sqlite)
        let out = try fixture.filmcache(
            ["warm", "--db", fixture.db, "--metrics-file", fixture.dir + "/no/such/m.prom", fixture.watchlist],
            environment: ["OMDB_API_KEY": Self.key])
        #expect(out.status == 78 && out.stderr.contains("m.prom: no directory"), "\(out.stderr)")
    }

    /// Three warms at pinned instants into one database, with a metrics file.
    final class Fixture: Sendable {
        /// The database, in a fresh directory (the file's, for SQLite) held until the tests end.
        let cache: CacheDatabase
        /// The directory of the metrics file (and of the database file, for SQLite).
        var dir: String { cache.scratch.dir }
        /// What `--db` names.
        var db: String { cache.argument }
        /// The metrics file the warms write.
        var metricsFile: String { dir + "/filmcache.prom" }
        /// The sample watchlist.
        let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
        /// The key's fingerprint as reports show it (the ledger's in full begins with it).
        let fingerprint: String
        /// What each warm left behind.
        let warms: [BuiltBinaries.Output]

        /// Runs the three warms into a new database on `backend`.
        init(_ backend: CacheDatabase.Backend) throws {
            let cache = try CacheDatabase(backend, in: ReliabilityScratch("reports").heldUntilExit())
            self.cache = cache
            let limited = try StandInProcess(arguments: ["--daily-limit", "40"])
            let open = try StandInProcess()
            let runs: [(String, StandInProcess, [String])] = [
                ("2026-11-05T02:00:00Z", limited, ["--max-in-flight", "1"]),
                ("2026-11-06T03:10:00Z", open, ["--daily-limit", "100"]),
                ("2026-11-21T02:30:00Z", open, ["--daily-limit", "150"]),
            ]
            warms = try runs.map { at, standIn, flags in
                try BuiltBinaries.run(
                    "filmcache",
                    ["warm", "--db", cache.argument, "--rate", "0", "--base-url", standIn.baseURL]
                        + flags + [
                            "--metrics-file", cache.scratch.dir + "/filmcache.prom",
                            BuiltBinaries.packageRoot + "/Data/watchlist.txt",
                        ],
                    environment: cache.environment(["OMDB_API_KEY": ReportEndToEndTests.key, "FILMCACHE_NOW": at]))
            }
            fingerprint = String(try cache.query("SELECT DISTINCT key_fingerprint FROM runs").prefix(12))
        }

        /// Runs the built `filmcache` with `arguments`, `$DB` and `$WATCHLIST` filled in.
        func filmcache(_ arguments: [String], environment: [String: String]) throws -> BuiltBinaries.Output {
            try BuiltBinaries.run(
                "filmcache",
                arguments.map { $0 == "$DB" ? db : $0 == "$WATCHLIST" ? watchlist : $0 },
                environment: cache.environment(environment))
        }
    }
}
