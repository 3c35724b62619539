import Foundation
import Testing

/// The built `filmcache` driven by job files, and the run lock between two warms.
@Suite(.serialized) struct JobEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-job-e2e-" + UUID().uuidString
    let key = "test-key-e2e"
    let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` in the test directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let path = dir + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The first `count` distinct IDs of the sample watchlist that the corpus knows, as a worklist.
    func smallWorklist(_ count: Int) throws -> String {
        let corpus = Set(
            try FileManager.default.contentsOfDirectory(atPath: BuiltBinaries.packageRoot + "/Data/corpus")
                .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) })
        let ids = corpus.sorted().prefix(count)
        return try write("small.txt", ids.joined(separator: "\n") + "\n")
    }

    func expectNoKey(_ outputs: BuiltBinaries.Output...) {
        for output in outputs {
            #expect(!output.stdout.contains(key) && !output.stderr.contains(key), "the key never appears")
        }
    }

    @Test func warmsFromAJobFileAndFlagsOverrideItsValues() throws {
        let standIn = try StandInProcess()
        // The job points at a port nobody listens on and allows 1,000 calls; the flags fix both.
        let job = try write(
            "nightly.toml",
            """
            # a test night
            worklists = ["\(watchlist)"]
            db = "state/films.sqlite"
            api_key_env = "FILMCACHE_TEST_KEY"
            base_url = "http://127.0.0.1:9/"
            rate = 0
            daily_limit = 1000
            reserve = 0
            max_runtime = "2h"
            metrics_file = "films.prom"
            """)
        try FileManager.default.createDirectory(atPath: dir + "/state", withIntermediateDirectories: true)
        let db = dir + "/state/films.sqlite"
        let out = try BuiltBinaries.run(
            "filmcache", ["warm", "--job", job, "--base-url", standIn.baseURL, "--daily-limit", "20"],
            environment: ["FILMCACHE_TEST_KEY": key], cwd: NSTemporaryDirectory())
        #expect(out.status == 75, "the flag's budget of 20 ran out: \(out.stderr)")
        #expect(try standIn.requestCount() == 20, "--daily-limit 20 overrode the job's 1000")
        #expect(FileManager.default.fileExists(atPath: db), "the job's relative db is beside the job file")
        #expect(try BuiltBinaries.sqlite(db, "SELECT sum(used) FROM quota_ledger") == "20")
        #expect(out.stdout.contains(db))

        let plan = try BuiltBinaries.run(
            "filmcache", ["plan", "--job", job, "--json"], environment: ["FILMCACHE_TEST_KEY": key])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(
            plan.stdout.contains("\"callsUsed\" : 20") || plan.stdout.contains("\"callsUsed\": 20"), "\(plan.stdout)")

        let missing = try BuiltBinaries.run("filmcache", ["warm", "--job", job, "--base-url", standIn.baseURL])
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("FILMCACHE_TEST_KEY"), "names the job's variable: \(missing.stderr)")
        expectNoKey(out, plan, missing)
    }

    /// The cache's readers may not read the key: `plan`, `quota` and `stats` call no one and need none.
    @Test func commandsThatCallNoOneRunWithAJobKeyFileTheyCannotRead() throws {
        let small = try smallWorklist(3)
        let job = try write(
            "reader.toml",
            """
            worklists = ["\(small)"]
            db = "reader.sqlite"
            api_key_file = "\(dir)/no-such-dir/omdb.key"
            """)
        for command in ["plan", "quota", "stats"] {
            let out = try BuiltBinaries.run("filmcache", [command, "--job", job])
            #expect(out.status == 0, "\(command): \(out.stderr)")
            if command != "stats" {
                #expect(out.stderr.contains("key file \(dir)/no-such-dir/omdb.key cannot be read"), "\(out.stderr)")
            }
        }
        let named = try BuiltBinaries.run(
            "filmcache", ["plan", "--job", job, "--api-key-file", dir + "/no-such-dir/omdb.key"])
        #expect(named.status == 78, "a key file named on the command line must be readable: \(named.stderr)")
    }

    @Test func worklistArgumentsReplaceTheJobsList() throws {
        let standIn = try StandInProcess()
        let small = try smallWorklist(3)
        let job = try write(
            "job.json",
            """
            {
              "worklists": ["\(watchlist)"],
              "db": "films.sqlite",
              "base_url": "\(standIn.baseURL)",
              "rate": 0
            }
            """)
        let out = try BuiltBinaries.run("filmcache", ["warm", "--job", job, small], environment: ["OMDB_API_KEY": key])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try standIn.requestCount() == 3)
        #expect(try BuiltBinaries.sqlite(dir + "/films.sqlite", "SELECT count(*) FROM films") == "3")
        expectNoKey(out)
    }

    @Test func aBadJobFileExits78NamingEachKeyAndLine() throws {
        let job = try write(
            "bad.toml",
            """
            db = "films.sqlite"
            # pace
            ratee = 4
            rate = 5
            burst = "lots"
            api_key = "\(key)"
            """)
        let out = try BuiltBinaries.run("filmcache", ["warm", "--job", job], environment: ["OMDB_API_KEY": key])
        #expect(out.status == 78)
        let lines = out.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "filmcache: job file \(job):3: unknown key 'ratee'; did you mean 'rate'?",
                "filmcache: job file \(job):5: burst: expected an integer, found a string",
                "filmcache: job file \(job):6: api_key: the API key itself never goes in a job file; name a file"
                    + " holding it with api_key_file or an environment variable with api_key_env",
            ], "\(out.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/films.sqlite"), "nothing runs on a bad job")
        expectNoKey(out)

        let plan = try BuiltBinaries.run("filmcache", ["plan", "--job", job])
        #expect(plan.status == 78 && plan.stderr.contains(":3: unknown key 'ratee'"))

        let absent = try BuiltBinaries.run("filmcache", ["warm", "--job", dir + "/absent.toml"])
        #expect(absent.status == 78 && absent.stderr.contains("job file \(dir)/absent.toml: cannot read it"))
    }

    @Test func aSecondWarmOnTheSameDatabaseExits75UnlessItWaits() throws {
        let standIn = try StandInProcess(arguments: ["--latency-ms", "100"])
        let small = try smallWorklist(12)
        let db = dir + "/films.sqlite"
        let lockPath = db + ".lock"
        let slow = ["--db", db, "--base-url", standIn.baseURL, "--rate", "2", "--burst", "1", "--max-in-flight", "1"]

        // Twelve IDs at two a second, one at a time.
        let first = try BackgroundRun("filmcache", ["warm"] + slow + [small], environment: ["OMDB_API_KEY": key])
        try waitFor("the first warm takes the lock", seconds: 30, every: 0.02, while: first.isRunning) {
            (try? String(contentsOfFile: lockPath, encoding: .utf8)) == "\(first.pid)\n"
        }
        // Slow enough that the first warm is busy through everything below, however loaded the
        // machine; it is sped up once the waiting warm has said so.
        try standIn.setBehaviour("latency-ms=5000")

        let refused = try BuiltBinaries.run(
            "filmcache", ["warm"] + slow + [small], environment: ["OMDB_API_KEY": key])
        #expect(refused.status == 75)
        #expect(refused.stderr.contains("another warm holds \(lockPath) (pid \(first.pid))"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--wait"))
        #expect(refused.stdout.isEmpty)

        let plan = try BuiltBinaries.run("filmcache", ["plan", "--db", db, small], environment: ["OMDB_API_KEY": key])
        #expect(plan.status == 0, "plan takes no lock: \(plan.stderr)")
        #expect(first.isRunning, "the first warm was still busy throughout")

        // The second run waits on the first, whatever the machine's load: the first stays in its
        // calls until the second has said it waits, then is let go.
        let waiting = try BackgroundRun(
            "filmcache", ["warm", "--wait"] + slow + [small], environment: ["OMDB_API_KEY": key])
        try waitFor("the second warm waits", every: 0.02, while: first.isRunning) {
            waiting.stderrSoFar.contains("waiting for it")
        }
        try standIn.setBehaviour("latency-ms=0")
        let waited = waiting.wait()
        let firstOutput = first.wait()
        #expect(firstOutput.status == 0, "\(firstOutput.stderr)")
        #expect(waited.status == 0, "\(waited.stderr)")
        #expect(waited.stderr.components(separatedBy: "waiting for it").count == 2, "logged once: \(waited.stderr)")
        #expect(waited.stdout.range(of: #"OMDb calls\s+0\b"#, options: .regularExpression) != nil, "\(waited.stdout)")
        #expect(try standIn.requestCount() == 12, "only the first warm called OMDb")
        #expect(try String(contentsOfFile: lockPath, encoding: .utf8).hasSuffix("\n"), "the lock file stays")
        expectNoKey(refused, plan, waited, firstOutput)
    }

    @Test func aWarmThatWasKilledLeavesNoStaleLock() throws {
        let standIn = try StandInProcess(arguments: ["--latency-ms", "2000"])
        let small = try smallWorklist(4)
        let db = dir + "/films.sqlite"
        let args = ["warm", "--db", db, "--base-url", standIn.baseURL, "--rate", "0", small]
        let first = try BackgroundRun("filmcache", args, environment: ["OMDB_API_KEY": key])
        try waitFor("the first warm takes the lock", seconds: 30, every: 0.02, while: first.isRunning) {
            (try? String(contentsOfFile: db + ".lock", encoding: .utf8)) == "\(first.pid)\n"
        }
        first.kill()
        _ = first.wait()
        let next = try BuiltBinaries.run("filmcache", args, environment: ["OMDB_API_KEY": key])
        #expect(next.status == 0, "the kernel dropped the dead run's lock: \(next.stderr)")
    }
}

/// A built binary running in the background, its output collected until it ends.
final class BackgroundRun: @unchecked Sendable {
    private let process = Process()
    private let stdout: ReadAll
    private let stderr: ReadAll

    /// Starts `name` with `arguments` and `environment` (added to a minimal one).
    init(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: BuiltBinaries.directory + "/" + name)
        process.arguments = arguments
        var env = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()]
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        stdout = ReadAll(out.fileHandleForReading)
        stderr = ReadAll(err.fileHandleForReading)
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// Whether it has not ended yet.
    var isRunning: Bool { process.isRunning }

    /// What it has written to standard error so far.
    var stderrSoFar: String { String(decoding: stderr.soFar, as: UTF8.self) }

    /// Ends it with SIGKILL, as a crash would.
    func kill() { Foundation.kill(process.processIdentifier, SIGKILL) }

    /// Waits for it to end and returns what it left behind.
    func wait() -> BuiltBinaries.Output {
        process.waitUntilExit()
        return BuiltBinaries.Output(
            status: process.terminationStatus, stdout: String(decoding: stdout.wait(), as: UTF8.self),
            stderr: String(decoding: stderr.wait(), as: UTF8.self))
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
