import Foundation
import PostgresScratch
import Testing

/// The real binary on a real PostgreSQL 15 cache: the same answers as on SQLite, and several warms
/// (separate processes, as separate hosts would be) sharing one cache, one ledger and one plan.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PostgresEndToEndTests {
    let server: ScratchPostgres
    let scratch: ReliabilityScratch

    init() async throws {
        // initdb and the server's start block: off the cooperative pool (see offThePool).
        (server, scratch) = try await offThePool { (try ScratchPostgres.shared(), try ReliabilityScratch("pg")) }
    }

    /// A new database's URL.
    func database() throws -> String { server.url(database: try server.createDatabase()) }

    /// The password reaches the binary only through `PGPASSWORD`.
    func environment(key: String = "demo") -> [String: String] {
        ["OMDB_API_KEY": key, "PGPASSWORD": server.password]
    }

    /// One value from `query` on the database at `url`.
    func sql(_ url: String, _ query: String) throws -> String {
        try server.sql(query, database: String(url.split(separator: "/").last ?? ""))
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `Int` a one-value query gives.
    func count(_ url: String, _ query: String) throws -> Int { Int(try sql(url, query)) ?? -1 }

    @Test func aWarmOnPostgreSQLAnswersAsOnSQLiteInEveryReadCommand() async throws {
        try await offThePool {
            // One pinned instant for both caches: every time in every answer is then the same.
            var environment = environment()
            environment["FILMCACHE_NOW"] = "2026-11-21T12:00:00Z"
            let ids = GeneratedIDs.first(300) + ["tt0000001", "tt9999999"]
            let worklist = try scratch.worklist("w.txt", ids)
            let url = try database()
            var answers: [String: [String]] = [:]
            for db in [scratch.db, url] {
                // Its own stand-in each, so each cache sees the same answers from a fresh quota.
                let standIn = try StandInProcess(arguments: ["--generate", "300"], corpus: nil)
                let warm = try BuiltBinaries.run(
                    "filmcache",
                    ["warm", "--db", db, "--base-url", standIn.baseURL, "--rate", "0", "--no-progress", worklist],
                    environment: environment)
                #expect(warm.status == 0, "\(db): \(warm.stderr)")
                var outputs: [String] = [warm.stdout.replacingOccurrences(of: db, with: "DB")]
                for arguments in [
                    ["plan", "--json", "--ids", worklist], ["quota", "--json"], ["show", "--json", ids[7]],
                    ["show", "--json", ids[299]],
                ] {
                    let out = try BuiltBinaries.run(
                        "filmcache", [arguments[0], "--db", db] + arguments.dropFirst(), environment: environment)
                    #expect(out.status == 0, "\(arguments) on \(db): \(out.stderr)")
                    outputs.append(out.stdout.replacingOccurrences(of: db, with: "DB"))
                }
                let stats = try BuiltBinaries.run(
                    "filmcache", ["stats", "--db", db, "--json", worklist], environment: environment)
                #expect(stats.status == 0, "stats on \(db): \(stats.stderr)")
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
                outputs.append(
                    ["films", "notFound", "failed", "fresh", "stale"].map { "\($0)=\(object[$0] ?? "?")" }.joined(
                        separator: " "))
                answers[db] = outputs
            }
            let sqlite = try #require(answers[scratch.db])
            let postgres = try #require(answers[url])
            for (index, (a, b)) in zip(sqlite, postgres).enumerated() {
                #expect(a == b, "output \(index) differs:\nSQLite:\n\(a)\nPostgreSQL:\n\(b)")
            }
            #expect(try count(url, "SELECT count(*) FROM films") == 300)
            #expect(try count(url, "SELECT count(*) FROM lookups") == 2)
            // No file to measure: the size is the server's, of the tables that hold 300 films.
            let stats = try BuiltBinaries.run("filmcache", ["stats", "--db", url], environment: environment)
            let line = stats.stdout.split(separator: "\n").first { $0.hasPrefix("  size ") }
            let bytes = line?.split(separator: ": ").last?.split(separator: " ").first.flatMap { Int($0) }
            #expect((bytes ?? 0) > 300 * 1_000 && !stats.stdout.contains("write-ahead log"), "\(stats.stdout)")
        }
    }

    @Test func threeWarmsShareOneBudgetAndOnePlanWithNoIDFetchedTwice() async throws {
        try await offThePool {
            let ids = GeneratedIDs.first(2_000)
            let worklist = try scratch.worklist("w.txt", ids)
            let name = try server.createDatabase()
            let url = server.url(database: name)
            // Answers slow until all three warms hold claims, however loaded the machine, so that each
            // gets a share of the budget; quicker after (600 calls then take one warm about 4 s).
            let standIn = try StandInProcess(arguments: ["--generate", "2000", "--latency-ms", "5000"], corpus: nil)
            let warms = try (0..<3).map { _ in
                try RunningBinary(
                    "filmcache",
                    [
                        "warm", "--db", url, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight", "8",
                        "--daily-limit", "600", "--reserve", "0", "--no-progress", worklist,
                    ], environment: environment())
            }
            try waitFor("all three warms claim IDs", while: warms.allSatisfy(\.isRunning)) {
                server.runsHoldingClaims(in: name) >= 3
            }
            try standIn.setBehaviour("latency-ms=50")
            let outputs = warms.map { $0.wait(timeout: 120) }
            for out in outputs { #expect(out.status == 0 || out.status == 75, "\(out.stderr)") }
            let counters = try #require(try standIn.firstKeyCounters())
            let served = try #require(counters["requests"] as? Int)
            let ledger = try count(url, "SELECT coalesce(sum(used), 0) FROM quota_ledger")
            #expect(counters["filmsServedAgain"] as? Int == 0, "no ID fetched twice: \(counters)")
            #expect(served <= 600 && ledger <= 600, "served \(served), ledger \(ledger)")
            #expect(served == ledger, "every call counted once: served \(served), ledger \(ledger)")
            #expect(try count(url, "SELECT count(*) FROM films") == served)
            // Each warm did a share: none idled while work was left.
            let shares = try sql(url, "SELECT string_agg(fetched::text, ' ' ORDER BY id) FROM runs")
            #expect(shares.split(separator: " ").compactMap { Int($0) }.filter { $0 > 0 }.count == 3, "\(shares)")
            #expect(shares.split(separator: " ").compactMap { Int($0) }.reduce(0, +) == served)
            #expect(try count(url, "SELECT count(*) FROM runs WHERE finished_at IS NULL") == 0)
            #expect(try count(url, "SELECT count(*) FROM claims WHERE lease_until > now()") == 0, "leases released")
        }
    }

    /// Three warms share a night; one is killed mid-run (SIGKILL: nothing of it runs after). Its
    /// session with the server ends with it, so the other two take what it held at once, though
    /// the claim lease is ten minutes: the night ends with every ID stored, long before the lease
    /// could have passed.
    @Test func aKilledWarmsClaimsAreTakenByTheOthersAtOnceThoughTheLeaseIsTenMinutes() async throws {
        try await offThePool {
            let ids = GeneratedIDs.first(600)
            let worklist = try scratch.worklist("w.txt", ids)
            let url = try database()
            // OMDb is slow until the kill, so that however loaded the machine, the victim is still far
            // from the end of the night then (600 IDs at 200 ms, four at a time: half a minute).
            let standIn = try StandInProcess(arguments: ["--generate", "600", "--latency-ms", "200"], corpus: nil)
            let arguments = [
                "warm", "--db", url, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight", "4",
                "--claim-lease", "10m", "--no-progress", worklist,
            ]
            func films() -> Int { (try? count(url, "SELECT count(*) FROM films")) ?? 0 }
            // The victim starts first (its run is the first) and commits some; the others join it.
            let victim = try RunningBinary("filmcache", arguments, environment: environment())
            try waitFor("the victim's first 40 films", every: 0.02, ifNotMet: .returnFalse) { films() >= 40 }
            let others = try (0..<2).map { _ in try RunningBinary("filmcache", arguments, environment: environment()) }
            try waitFor("three runs and 100 films", every: 0.02, ifNotMet: .returnFalse) {
                (try? count(url, "SELECT count(*) FROM runs")) == 3 && films() >= 100
            }
            victim.send(SIGKILL)
            try standIn.setBehaviour("latency-ms=20")
            let killed = victim.wait()
            #expect(killed.status == SIGKILL, "the victim was still working: \(killed.stderr)")
            let committed = films()
            let killedAt = Date()

            // Two minutes is a fifth of the lease: only the victim's session ending frees its IDs so soon.
            for out in others.map({ $0.wait(timeout: 120) }) { #expect(out.status == 0, "\(out.stderr)") }
            let night = Date().timeIntervalSince(killedAt)
            #expect(films() == ids.count, "every ID stored, the dead warm's included")
            #expect(committed < ids.count, "the victim died with IDs left to fetch")
            #expect(night < 300, "the night ended \(Int(night)) s after the kill, under a 600 s lease")
            let counters = try #require(try standIn.firstKeyCounters())
            // Only what the dead warm had sent and not committed is asked again.
            let again = try #require(counters["filmsServedAgain"] as? Int)
            #expect(again < ids.count - committed, "asked again: \(again)")
            #expect(try count(url, "SELECT count(*) FROM runs WHERE outcome = 'killed'") == 1)
            #expect(try count(url, "SELECT count(*) FROM runs WHERE finished_at IS NULL") == 0)
            #expect(try count(url, "SELECT count(*) FROM claims") == 0, "no claim left behind")
            let ledger = try count(url, "SELECT coalesce(sum(used), 0) FROM quota_ledger")
            #expect(ledger >= (counters["requests"] as? Int ?? .max), "the ledger is never under the calls served")
        }
    }

    /// The session that holds a warm's claims is ended under it while the process lives (an
    /// administrator's `pg_terminate_backend`; a proxy cutting one connection): the warm stops
    /// claiming and sending at once and exits 75, committing what it had; the other warm takes
    /// the rest of the night. What is asked twice is at most what was on its way when the
    /// session ended.
    @Test func aWarmWhoseSessionIsCutStopsAndTheOtherTakesItsClaims() async throws {
        try await offThePool {
            let ids = GeneratedIDs.first(600)
            let worklist = try scratch.worklist("w.txt", ids)
            let url = try database()
            // OMDb is slow until the session is cut, so that however loaded the machine, the night is still
            // far from its end then: 600 IDs at 200 ms, four at a time, take half a minute.
            let standIn = try StandInProcess(arguments: ["--generate", "600", "--latency-ms", "200"], corpus: nil)
            let arguments = [
                "warm", "--db", url, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight", "4",
                "--claim-lease", "10m", "--no-progress", worklist,
            ]
            func films() -> Int { (try? count(url, "SELECT count(*) FROM films")) ?? 0 }
            func sessions() -> [String] {
                ((try? sql(
                    url,
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND application_name = 'filmcache session'")) ?? "").split(separator: "\n").map(String.init)
            }
            let cut = try RunningBinary("filmcache", arguments, environment: environment())
            try waitFor("40 films and the warm's session", every: 0.02, ifNotMet: .returnFalse) {
                films() >= 40 && sessions().count == 1
            }
            let session = sessions()
            let other = try RunningBinary("filmcache", arguments, environment: environment())
            try waitFor("two runs and 100 films", every: 0.02, ifNotMet: .returnFalse) {
                (try? count(url, "SELECT count(*) FROM runs")) == 2 && films() >= 100
            }
            try #require(cut.isRunning, "the warm whose session is to be cut ended first: \(films()) films")
            #expect(try sql(url, "SELECT pg_terminate_backend(\(session.first ?? "0"))") == "t")
            try standIn.setBehaviour("latency-ms=20")
            let stopped = cut.wait(timeout: 60)
            #expect(stopped.status == 75, "\(stopped.stderr)")
            #expect(stopped.stderr.contains("the session that held this run's claims ended"), "\(stopped.stderr)")
            let out = other.wait(timeout: 120)
            #expect(out.status == 0, "\(out.stderr)")
            #expect(films() == ids.count, "every ID stored")
            let counters = try #require(try standIn.firstKeyCounters())
            let again = try #require(counters["filmsServedAgain"] as? Int)
            #expect(again <= 4, "asked twice: \(again); 4 were in flight at most")
            let ledger = try count(url, "SELECT coalesce(sum(used), 0) FROM quota_ledger")
            #expect(ledger >= (counters["requests"] as? Int ?? .max), "the ledger is never under the calls served")
            #expect(try count(url, "SELECT count(*) FROM runs WHERE finished_at IS NULL") == 0)
            #expect(try count(url, "SELECT count(*) FROM claims") == 0)
        }
    }

    @Test func aLimitOneWarmMeetsStopsTheOthersAtOnce() async throws {
        try await offThePool {
            let ids = GeneratedIDs.first(200)
            let worklist = try scratch.worklist("w.txt", ids)
            let url = try database()
            // One key, two OMDb stand-ins: the first answers "limit reached" after 5 calls, the
            // second never does. The slow warm sends one call a second from a block of 8 reserved
            // calls: told nothing, it would go on spending that block for seconds after the limit.
            let limited = try StandInProcess(arguments: ["--generate", "200", "--daily-limit", "5"], corpus: nil)
            let open = try StandInProcess(arguments: ["--generate", "200"], corpus: nil)
            func warm(_ standIn: StandInProcess, _ pace: [String]) throws -> RunningBinary {
                try RunningBinary(
                    "filmcache",
                    ["warm", "--db", url, "--base-url", standIn.baseURL, "--no-progress"] + pace + [worklist],
                    environment: environment())
            }
            let slow = try warm(open, ["--rate", "1", "--burst", "1", "--max-in-flight", "8"])
            try waitFor("the slow warm's first two calls", seconds: 30, ifNotMet: .returnFalse) {
                try open.requestCount() >= 2
            }
            let fast = try warm(limited, ["--rate", "0", "--max-in-flight", "1"])
            let exhausted = "SELECT count(*) FROM quota_ledger WHERE exhausted_at IS NOT NULL"
            try waitFor("the limit recorded", every: 0.02, ifNotMet: .returnFalse) { try count(url, exhausted) != 0 }
            let sentAtTheRecord = try open.requestCount()
            #expect(try count(url, exhausted) == 1, "the fast warm recorded the limit")
            // The notice reaches the slow warm (however long the machine takes to pass it on) ...
            try waitFor(
                "the notice in the slow warm's log", every: 0.02, while: slow.isRunning, ifNotMet: .returnFalse
            ) { slow.stderrSoFar.contains("limit reached by another warm") }
            let sentAtTheNotice = try open.requestCount()
            let fastOut = fast.wait(timeout: 60)
            let slowOut = slow.wait(timeout: 30)
            // Waited past two more of the slow warm's beats, had it gone on.
            usleep(2_500_000)
            let sentAfter = try open.requestCount() - sentAtTheNotice
            #expect(fastOut.status == 75 && slowOut.status == 75, "\(fastOut.stderr)\n\(slowOut.stderr)")
            #expect(slowOut.stderr.contains("limit reached by another warm"), "\(slowOut.stderr)")
            // ... and stops it: a call already on its way may land; none is sent after the notice.
            #expect(sentAfter <= 1, "the slow warm sent \(sentAfter) calls after it heard of the limit")
            // The notice, not the slow warm's own next reservation eight beats on, is what stopped it.
            let sentSinceTheRecord = try open.requestCount() - sentAtTheRecord
            #expect(
                sentSinceTheRecord <= 4, "the slow warm sent \(sentSinceTheRecord) calls after the limit was recorded")
            #expect(
                try sql(url, "SELECT string_agg(outcome, ' ' ORDER BY id) FROM runs")
                    == "limit-reached limit-reached")
            let served = try open.requestCount() + limited.requestCount()
            let ledger = try count(url, "SELECT coalesce(sum(used), 0) FROM quota_ledger")
            #expect(ledger >= served, "ledger \(ledger), served \(served)")
        }
    }

    @Test func thePasswordComesOnlyFromTheEnvironmentOrAFileAndIsNeverShown() async throws {
        try await offThePool {
            let url = try database()
            let secretURL = url.replacingOccurrences(of: "filmcache@", with: "filmcache:\(server.password)@")
            let refused = try BuiltBinaries.run("filmcache", ["quota", "--db", secretURL], environment: [:])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("holds a password") && !refused.stderr.contains(server.password))

            let wrong = try BuiltBinaries.run(
                "filmcache", ["quota", "--db", url], environment: ["PGPASSWORD": "nope-nope"])
            #expect(wrong.status != 0 && !wrong.stderr.contains("nope-nope"), "\(wrong.stderr)")

            let file = try scratch.write("pg.password", Array((server.password + "\n").utf8))
            let job = try scratch.write("job.toml", Array("db = \"\(url)\"\ndb_password_file = \"\(file)\"\n".utf8))
            let worklist = try scratch.worklist("w.txt", GeneratedIDs.first(3))
            let standIn = try StandInProcess(arguments: ["--generate", "3"], corpus: nil)
            let warm = try BuiltBinaries.run(
                "filmcache", ["warm", "--job", job, "--base-url", standIn.baseURL, "--no-progress", worklist],
                environment: ["OMDB_API_KEY": "demo"])
            #expect(warm.status == 0, "\(warm.stderr)")
            let planned = try BuiltBinaries.run("filmcache", ["plan", "--job", job, worklist], environment: [:])
            #expect(planned.status == 0 && planned.stdout.contains("3"), "\(planned.stdout) \(planned.stderr)")
            for text in [warm.stdout, warm.stderr, planned.stdout, planned.stderr] {
                #expect(!text.contains(server.password))
            }
            #expect(try count(url, "SELECT count(*) FROM films") == 3)
        }
    }

    /// On a database no warm has given the schema, the read commands answer as on a SQLite file
    /// not created yet: an empty cache (`show`: no cache database, exit 1). Neither is created.
    @Test func readCommandsAnswerAnEmptyCacheAsOnAMissingFileAndNeverCreateTheSchema() async throws {
        try await offThePool {
            let url = try database()
            let missing = scratch.dir + "/never-made.sqlite"
            let worklist = try scratch.worklist("w.txt", GeneratedIDs.first(3))
            for arguments in [["quota"], ["plan", worklist], ["stats"], ["stats", "--json"]] {
                func run(_ db: String) throws -> BuiltBinaries.Output {
                    try BuiltBinaries.run(
                        "filmcache", [arguments[0], "--db", db] + arguments.dropFirst(), environment: environment())
                }
                let (onServer, onFile) = (try run(url), try run(missing))
                #expect(onServer.status == 0, "\(arguments): \(onServer.stderr)")
                #expect(onFile.status == 0, "\(arguments): \(onFile.stderr)")
                let masked = onServer.stdout.replacingOccurrences(of: url, with: "DB")
                if arguments == ["stats"] {
                    #expect(masked.contains("DB (no filmcache schema yet: an empty cache)"), "\(masked)")
                    #expect(masked.contains("films       0  rows"), "\(masked)")
                } else if arguments != ["stats", "--json"] {
                    #expect(masked == onFile.stdout.replacingOccurrences(of: missing, with: "DB"), "\(arguments)")
                }
            }
            let show = try BuiltBinaries.run(
                "filmcache", ["show", "--db", url, "tt0000001"], environment: environment())
            #expect(show.status == 1, "\(show.stderr)")
            #expect(show.stderr.contains("no cache database at \(url)"), "\(show.stderr)")
            #expect(try count(url, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'") == 0)
            #expect(!FileManager.default.fileExists(atPath: missing))
        }
    }
}
