import Foundation
import Testing

/// The built `filmcache` against a misbehaving stand-in, and two processes on one budget.
@Suite(.serialized) struct FetchPolicyEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-e2e-" + UUID().uuidString
    var db: String { dir + "/cache.sqlite" }
    let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
    let key = "test-key-e2e"
    /// Quick retries so a storm finishes in seconds.
    let fastRetries = [
        "--rate", "0", "--retry-base", "0.01", "--retry-cap", "0.05", "--max-attempts", "8",
        "--breaker-pause-after", "50", "--breaker-stop-after", "200", "--breaker-cool-down", "0.1",
    ]

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    func sqlite(_ query: String) throws -> String { try BuiltBinaries.sqlite(db, query) }

    @Test func aFaultStormLosesNoIDAndTheLedgerMatchesTheServer() throws {
        let standIn = try StandInProcess(arguments: [
            "--fault-rate", "0.3", "--seed", "11",
            "--faults", "500,503,429,503-retry-after,reset,truncate,malformed,error-getting-data",
        ])
        let out = try BuiltBinaries.run(
            "filmcache",
            ["warm", "--db", db, "--base-url", standIn.baseURL, "--log-level", "debug"] + fastRetries
                + [watchlist], environment: ["OMDB_API_KEY": key])
        #expect(out.status == 0, "\(out.stderr.suffix(2000))")
        let served = try standIn.requestCount()
        #expect(served > 292, "faults forced retries")
        #expect(try sqlite("SELECT sum(used) FROM quota_ledger") == "\(served)", "every call counted, none twice")
        #expect(out.stdout.range(of: #"OMDb calls\s+\#(served)\b"#, options: .regularExpression) != nil)
        // Every distinct ID ends up somewhere: a film, a not-found answer, or a failure with a retry time.
        let accounted = try sqlite(
            "SELECT (SELECT count(*) FROM films) + (SELECT count(*) FROM lookups WHERE next_attempt_at IS NOT NULL)")
        #expect(accounted == "292")
        #expect(!out.stderr.contains(key) && !out.stdout.contains(key), "the key never reaches the logs")
    }

    @Test func twoProcessesOnOneDatabaseShareOneBudget() throws {
        let standIn = try StandInProcess()
        let lines = try String(contentsOfFile: watchlist, encoding: .utf8).split(whereSeparator: \.isNewline)
            .filter { $0.hasPrefix("tt") }.map { String($0.prefix(9)) }
        let half = lines.count / 2
        let a = dir + "/a.txt"
        let b = dir + "/b.txt"
        try lines[..<half].joined(separator: "\n").write(toFile: a, atomically: true, encoding: .utf8)
        try lines[half...].joined(separator: "\n").write(toFile: b, atomically: true, encoding: .utf8)
        let common = [
            "warm", "--db", db, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight", "3", "--daily-limit",
            "60", "--reserve", "0",
        ]
        let key = key
        let results = [a, b].map { list in
            let box = ResultBox()
            let arguments = common + [list]
            let thread = Thread {
                box.output = try? BuiltBinaries.run("filmcache", arguments, environment: ["OMDB_API_KEY": key])
                box.done.signal()
            }
            thread.start()
            return box
        }
        let outputs = results.map { box -> BuiltBinaries.Output? in
            box.done.wait()
            return box.output
        }
        for output in outputs {
            #expect(output?.status == 75, "each stops when the shared budget is spent: \(output?.stderr ?? "")")
        }
        #expect(try standIn.requestCount() == 60)
        #expect(try sqlite("SELECT sum(used) FROM quota_ledger") == "60")
    }
}

/// Carries one process's output back from its thread.
final class ResultBox: @unchecked Sendable {
    var output: BuiltBinaries.Output?
    let done = DispatchSemaphore(value: 0)
}
