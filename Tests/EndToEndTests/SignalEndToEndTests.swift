import Foundation
import OMDbStandIn
import Testing

/// The built `filmcache` stopped by a signal or its time limit mid-run, and its logs and progress.
@Suite(.serialized) struct SignalEndToEndTests {
    /// A fresh directory for the database and the worklist.
    let dir = NSTemporaryDirectory() + "filmcache-e2e-" + UUID().uuidString
    /// The cache database.
    var db: String { dir + "/cache.sqlite" }
    /// A key the stand-in accepts.
    let key = "test-key-e2e"
    /// Films in the generated corpus and the worklist over it.
    static let films = 2_000

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    /// Runs `query` on the database with the sqlite3 shell.
    func sqlite(_ query: String) throws -> String { try BuiltBinaries.sqlite(db, query) }

    /// A stand-in serving a generated corpus slowly enough that a run takes several seconds.
    func slowStandIn() throws -> StandInProcess {
        try StandInProcess(arguments: ["--generate", "\(Self.films)", "--latency-ms", "20"], corpus: nil)
    }

    /// A worklist naming every film of the generated corpus.
    func worklist() throws -> String {
        let path = dir + "/generated.txt"
        let generator = CorpusGenerator(seed: 1)
        let ids = (0..<Self.films).map { generator.imdbID(at: $0) }
        try ids.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `warm` flags against `standIn`: four requests in flight, no rate limit, a budget that never binds.
    func warm(_ standIn: StandInProcess, _ extra: [String] = []) throws -> [String] {
        [
            "warm", "--db", db, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight", "4", "--daily-limit",
            "100000",
        ] + extra + [try worklist()]
    }

    /// The number on the summary row labelled `label`.
    func summaryNumber(_ label: String, in output: String) -> Int? {
        guard let range = output.range(of: "(?m)^  \(label) +[0-9]+", options: .regularExpression) else { return nil }
        return Int(output[range].split(separator: " ").last ?? "")
    }

    /// What a clean early stop leaves: an intact database holding every film the summary counts,
    /// and a ledger equal to the server's count.
    func expectCleanStop(_ out: BuiltBinaries.Output, standIn: StandInProcess) throws -> Int {
        #expect(out.status == 75, "\(out.stderr.suffix(2_000))")
        #expect(try sqlite("PRAGMA integrity_check") == "ok")
        let fetched = try #require(summaryNumber("fetched", in: out.stdout), "\(out.stdout)")
        #expect(fetched > 0 && fetched < Self.films)
        #expect(try sqlite("SELECT count(*) FROM films") == "\(fetched)", "every film the summary counts is stored")
        #expect(summaryNumber("deferred", in: out.stdout) == Self.films - fetched)
        let served = try standIn.requestCount()
        #expect(summaryNumber("OMDb calls", in: out.stdout) == served)
        #expect(try sqlite("SELECT sum(used) FROM quota_ledger") == "\(served)", "every call counted, none reserved")
        return fetched
    }

    @Test func sigtermMidRunFinishesCallsInFlightExits75AndARerunDoesTheRest() throws {
        let standIn = try slowStandIn()
        let running = try RunningBinary("filmcache", try warm(standIn), environment: ["OMDB_API_KEY": key])
        try waitFor("100 calls served", ifNotMet: .record) { try standIn.requestCount() >= 100 }
        running.send(SIGTERM)
        let out = running.wait()
        #expect(out.stdout.contains("stopped early: interrupted"), "\(out.stdout)")
        #expect(out.stderr.contains("SIGTERM received"))
        let fetched = try expectCleanStop(out, standIn: standIn)

        let rest = try BuiltBinaries.run(
            "filmcache", try warm(standIn, ["--max-in-flight", "16"]), environment: ["OMDB_API_KEY": key])
        #expect(rest.status == 0, "\(rest.stderr.suffix(2_000))")
        #expect(summaryNumber("fetched", in: rest.stdout) == Self.films - fetched)
        #expect(try sqlite("SELECT count(*) FROM films") == "\(Self.films)")
        #expect(try standIn.requestCount() == Self.films, "no film fetched twice")
        #expect(try sqlite("SELECT sum(used) FROM quota_ledger") == "\(Self.films)")
    }

    @Test func aSecondSignalExitsAtOnceAndLeavesTheDatabaseIntact() throws {
        let standIn = try StandInProcess(
            arguments: ["--generate", "\(Self.films)", "--latency-ms", "5000"], corpus: nil)
        let running = try RunningBinary("filmcache", try warm(standIn), environment: ["OMDB_API_KEY": key])
        try waitFor("a call served", ifNotMet: .record) { try standIn.requestCount() >= 1 }
        running.send(SIGINT)
        // Two signals the run has not yet read would be read as one.
        try waitFor("the first SIGINT read", ifNotMet: .record) { running.stderrSoFar.contains("SIGINT received") }
        running.send(SIGINT)
        let out = running.wait()
        #expect(out.status == 130, "\(out.stderr)")
        #expect(out.stderr.contains("exiting at once"))
        #expect(try sqlite("PRAGMA integrity_check") == "ok")
        let used = Int(try sqlite("SELECT sum(used) FROM quota_ledger")) ?? 0
        #expect(used >= (try standIn.requestCount()), "a hard exit may over-count, never under-count")
    }

    @Test func maxRuntimeStopsCleanlyWith75() throws {
        let standIn = try slowStandIn()
        let started = Date()
        let out = try BuiltBinaries.run(
            "filmcache", try warm(standIn, ["--max-runtime", "6s", "--no-progress", "--progress-interval", "0.5"]),
            environment: ["OMDB_API_KEY": key])
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed >= 6 && elapsed < 60, "\(elapsed) s")
        #expect(out.stdout.contains("stopped early: the time limit is up"), "\(out.stdout)")
        #expect(out.stderr.contains("time limit reached"))
        #expect(!out.stderr.contains("progress"), "--no-progress")
        _ = try expectCleanStop(out, standIn: standIn)
    }

    @Test func offATerminalProgressIsALogfmtLineEveryInterval() throws {
        let standIn = try slowStandIn()
        let out = try BuiltBinaries.run(
            "filmcache", try warm(standIn, ["--max-runtime", "6", "--progress-interval", "1"]),
            environment: ["OMDB_API_KEY": key])
        #expect(out.status == 75)
        let progress = out.stderr.split(separator: "\n").filter { $0.contains(#"msg="progress""#) }
        #expect(progress.count >= 2, "\(out.stderr)")
        for line in progress {
            #expect(line.hasPrefix("ts=") && line.contains(" level=notice "))
            #expect(line.contains(" total=\(Self.films)") && line.contains(" done=") && line.contains(" quota_left="))
        }
        #expect(!out.stderr.contains("\u{1B}["), "no terminal escapes off a terminal")
    }

    @Test func jsonLogLinesParseAndCarryThePlan() throws {
        let standIn = try StandInProcess()
        let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
        let out = try BuiltBinaries.run(
            "filmcache",
            [
                "warm", "--db", db, "--base-url", standIn.baseURL, "--rate", "0", "--log-format", "json", "--log-level",
                "debug", watchlist,
            ], environment: ["OMDB_API_KEY": key])
        #expect(out.status == 0, "\(out.stderr.suffix(2_000))")
        let lines = out.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        var objects: [[String: Any]] = []
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["ts"] is String && object?["level"] is String && object?["msg"] is String, "\(line)")
            if let object { objects.append(object) }
        }
        let plan = objects.first { $0["msg"] as? String == "plan" }
        #expect(plan?["level"] as? String == "info" && plan?["considered"] as? String == "292")
        #expect(!out.stderr.contains(key) && !out.stderr.contains("apikey"), "no key, no URL")
    }
}
