import Foundation
import Testing

/// Runs the built `filmcache` and `omdb-standin` executables as a user would.
enum BuiltBinaries {
    /// The package root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Where `swift build` put the executables (override with FILMCACHE_BIN_DIR).
    static let directory: String = {
        if let dir = ProcessInfo.processInfo.environment["FILMCACHE_BIN_DIR"] { return dir }
        return packageRoot + "/.build/debug"
    }()

    /// What a finished process left behind.
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `name` with `arguments` and `environment` (added to a minimal one) and waits for it.
    static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:], cwd: String? = nil)
        throws -> Output
    {
        try RunningBinary(name, arguments, environment: environment, cwd: cwd).wait()
    }
}

extension BuiltBinaries {
    /// Runs one query with the `sqlite3` command-line shell, as an operator would, and returns its output.
    static func sqlite(_ database: String, _ query: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database, query]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Reads a file handle to its end on a background thread.
final class ReadAll: @unchecked Sendable {
    private var data = Data()
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { data.append(chunk) }
            }
            done.signal()
        }
    }

    /// What was read so far, while the writer may still be writing.
    var soFar: Data { lock.withLock { data } }

    func wait() -> Data {
        done.wait()
        return lock.withLock { data }
    }
}

/// An `omdb-standin` process on a free port of `host` (loopback unless given), stopped on release.
final class StandInProcess: @unchecked Sendable {
    let process = Process()
    /// The address it listens on.
    let host: String
    let port: Int
    var baseURL: String { "http://\(host):\(port)/" }

    /// Starts a stand-in serving `corpus` (a generated one when `nil`, see `--generate`) on `host`.
    init(
        arguments: [String] = [], keys: String = "demo,test-key-e2e",
        corpus: String? = BuiltBinaries.packageRoot + "/Data/corpus", host: String = "127.0.0.1"
    ) throws {
        self.host = host
        process.executableURL = URL(fileURLWithPath: BuiltBinaries.directory + "/omdb-standin")
        process.arguments = ["--host", host, "--port", "0"] + (corpus.map { ["--corpus", $0] } ?? []) + arguments
        process.environment = ["OMDB_STANDIN_KEYS": keys, "PATH": "/usr/bin:/bin"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "listening on \(host):"),
            let port = Int(text[range.upperBound...].prefix { $0.isNumber })
        else {
            process.terminate()
            throw StandInError.didNotStart(text)
        }
        self.port = port
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    /// The stand-in's total request count, from its stats endpoint.
    func requestCount() throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-fsS", baseURL + "__standin/stats"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard let total = object?["totalRequests"] as? Int else {
            throw StandInError.badStats(String(decoding: data, as: UTF8.self))
        }
        return total
    }

    enum StandInError: Error {
        case didNotStart(String)
        case badStats(String)
    }
}
