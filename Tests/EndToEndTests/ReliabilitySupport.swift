import Foundation
import OMDbStandIn
import Synchronization
import Testing

/// The reliability suites, run one test at a time.
///
/// Each of them starts processes that keep both cores busy for seconds; run side by side they would
/// mostly measure the machine. Serialized, they still run beside the rest of the suite.
@Suite(.serialized) enum Reliability {}

/// A scratch directory with a cache database in it, and the ways the reliability suites look at both.
///
/// Every check goes through real tools: the `sqlite3` shell for the database, `filmcache plan`
/// for what is still due, and the stand-in's own counters for what OMDb would have seen.
/// The directory goes when the value does (the kill loop's holds 30 MB), unless
/// `FILMCACHE_KEEP_TEST_FILES` is set, for a look after a failure.
final class ReliabilityScratch: Sendable {
    /// The directory.
    let dir: String
    /// The cache database in `dir`.
    var db: String { dir + "/cache.sqlite" }

    /// Makes a fresh directory whose name starts with `name`.
    init(_ name: String) throws {
        dir = NSTemporaryDirectory() + "filmcache-rel-\(name)-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    deinit {
        removeUnlessKept()
    }

    /// Removes the directory, unless `FILMCACHE_KEEP_TEST_FILES` asks to keep it.
    func removeUnlessKept() {
        if ProcessInfo.processInfo.environment["FILMCACHE_KEEP_TEST_FILES"] == nil {
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    /// Holds this scratch until the test process exits and removes it then: for one a static keeps.
    func heldUntilExit() -> ReliabilityScratch {
        HeldUntilExit.scratches.withLock { $0.append(self) }
        HeldUntilExit.registration
        return self
    }

    /// Runs `query` on `database` (the scratch database by default) with the sqlite3 shell; throws on any error.
    func sqlite(_ query: String, database: String? = nil) throws -> String {
        let out = try ReliabilityProcess.run("/usr/bin/sqlite3", ["-bail", database ?? db, query])
        guard out.status == 0, out.stderr.isEmpty else {
            throw ReliabilityError.sqlite(query: query, status: out.status, stderr: out.stderr)
        }
        return out.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The rows of a one-column query.
    func column(_ query: String, database: String? = nil) throws -> [String] {
        try sqlite(query, database: database).split(separator: "\n").map(String.init)
    }

    /// What a reader of `films` sees: row count and total raw JSON length, as one comparable string.
    func filmsChecksum(database: String? = nil) throws -> String {
        try sqlite("SELECT count(*), coalesce(sum(length(raw_json)), 0) FROM films", database: database)
    }

    /// Writes `bytes` to `name` in the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: some Sequence<UInt8>) throws -> String {
        let path = dir + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes `ids`, one a line, to `name` and returns its path.
    @discardableResult
    func worklist(_ name: String, _ ids: some Sequence<String>) throws -> String {
        try write(name, Array((ids.joined(separator: "\n") + "\n").utf8))
    }

    /// `filmcache plan --json --ids` over `worklists` as a dictionary; `extra` flags and `environment` added.
    /// `database` is what `--db` names: the scratch database unless given.
    func plan(
        _ worklists: [String], _ extra: [String] = [], database: String? = nil, environment: [String: String] = [:]
    ) throws -> [String: Any] {
        let out = try BuiltBinaries.run(
            "filmcache", ["plan", "--db", database ?? db, "--json", "--ids"] + extra + worklists,
            environment: environment)
        #expect(out.status == 0, "plan: \(out.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
        return try #require(object, "plan printed no JSON object: \(out.stdout)")
    }
}

/// Scratch directories that statics hold, removed when the test process exits.
private enum HeldUntilExit {
    static let scratches = Mutex<[ReliabilityScratch]>([])
    /// Registers the exit handler the first time it is read.
    static let registration: Void = {
        atexit { HeldUntilExit.scratches.withLock { $0.forEach { $0.removeUnlessKept() } } }
    }()
}

/// The IDs of the stand-in's generated corpus (`--generate N` with the default corpus seed).
enum GeneratedIDs {
    /// The first `count` IDs, in corpus order.
    static func first(_ count: Int) -> [String] {
        let generator = CorpusGenerator(seed: 1)
        return (0..<count).map { generator.imdbID(at: $0) }
    }
}

/// Counters and controls of a running stand-in beyond its request count.
extension StandInProcess {
    /// `GET /__standin/stats` as a dictionary.
    func stats() throws -> [String: Any] {
        try control("GET", "stats")
    }

    /// `Request limit reached!` answers the stand-in gave, over all keys.
    func limitAnswers() throws -> Int {
        let keys = try stats()["keys"] as? [[String: Any]] ?? []
        return keys.reduce(0) { $0 + (($1["counters"] as? [String: Any])?["limitReached"] as? Int ?? 0) }
    }

    /// The counters of the first key the stand-in accepts, from its stats; `nil` when it has none.
    func firstKeyCounters() throws -> [String: Any]? {
        ((try stats()["keys"] as? [[String: Any]])?.first)?["counters"] as? [String: Any]
    }

    /// Changes limits, faults or latency at runtime (`POST /__standin/faults?…`).
    func setBehaviour(_ parameters: String) throws {
        _ = try control("POST", "faults?" + parameters)
    }

    /// Zeroes every counter and each key's daily use, as a new OMDb day would (`POST /__standin/reset`).
    func resetCounters() throws {
        _ = try control("POST", "reset")
    }

    private func control(_ method: String, _ path: String) throws -> [String: Any] {
        let out = try ReliabilityProcess.run("/usr/bin/curl", ["-fsS", "-X", method, baseURL + "__standin/" + path])
        guard out.status == 0,
            let object = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
        else { throw ReliabilityError.standIn(path: path, answer: out.stdout + out.stderr) }
        return object
    }
}

/// Runs a helper tool (sqlite3, curl, mount) and collects what it printed.
enum ReliabilityProcess {
    /// Runs `executable` with `arguments`, waits for it, and returns its status and output.
    ///
    /// `environment`, when given, is all the process sees (with a minimal PATH and HOME added).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> BuiltBinaries.Output
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment {
            process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()].merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = ReadAll(out.fileHandleForReading)
        let stderr = ReadAll(err.fileHandleForReading)
        process.waitUntilExit()
        return BuiltBinaries.Output(
            status: process.terminationStatus, stdout: String(decoding: stdout.wait(), as: UTF8.self),
            stderr: String(decoding: stderr.wait(), as: UTF8.self))
    }
}

/// A helper tool failed, so the check it served cannot be made.
enum ReliabilityError: Error, CustomStringConvertible {
    /// The sqlite3 shell failed or complained.
    case sqlite(query: String, status: Int32, stderr: String)
    /// The stand-in's control endpoint did not answer with JSON.
    case standIn(path: String, answer: String)

    /// What failed, with the tool's own words.
    var description: String {
        switch self {
        case .sqlite(let query, let status, let stderr): "sqlite3 exited \(status) on \(query): \(stderr)"
        case .standIn(let path, let answer): "stand-in /__standin/\(path) answered: \(answer)"
        }
    }
}

/// Runs synchronous test code that blocks (waiting for processes, sleeping between kills) on a thread of its own.
///
/// Swift Testing runs tests on the cooperative pool, one thread per core. A test that blocks one of
/// those threads for half a minute starves every other test's tasks of it: on a 2-core machine the
/// time-sensitive stop tests of `WarmJobTests` then missed their deadlines. A task executor preference
/// keeps the test's own task, so `#expect` still knows which test it is in, while running it elsewhere.
func offThePool<T>(_ body: () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(ThreadPerJob()) { try body() }
}

/// A task executor that runs each job it is given on a new thread.
final class ThreadPerJob: TaskExecutor {
    /// Runs `job` on a thread started for it.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        Thread.detachNewThread { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
