import Foundation
import Testing

/// A `filmcache serve` process on a free loopback port, asking `standIn` with the key `demo`,
/// accepting the tokens `ServeProcess.tokens`; stopped on release.
final class ServeProcess: @unchecked Sendable {
    static let tokens = ["app-token-alpha-1", "app-token-beta-22"]
    static let omdbKey = "demo"

    let binary: RunningBinary
    let port: Int
    var base: String { "http://127.0.0.1:\(port)" }

    /// Starts serve on `database` with the extra `arguments`; `environment` adds to the key's.
    init(
        database: String, standIn: StandInProcess, tokensFile: String, arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws {
        let binary = try RunningBinary(
            "filmcache",
            [
                "serve", "--db", database, "--tokens-file", tokensFile, "--listen", "127.0.0.1:0", "--base-url",
                standIn.baseURL, "--rate", "0", "--log-format", "logfmt", "--log-level", "info",
            ] + arguments,
            environment: ["OMDB_API_KEY": Self.omdbKey].merging(environment) { $1 })
        self.binary = binary
        var port: Int?
        try waitFor("serve's address in its log", while: binary.isRunning, ifNotMet: .returnFalse) {
            let log = binary.stderrSoFar
            if let range = log.range(of: "address=127.0.0.1:") {
                port = Int(log[range.upperBound...].prefix { $0.isNumber })
            }
            return port != nil
        }
        guard let port else {
            binary.send(SIGKILL)
            throw ServeError.didNotStart(binary.wait(timeout: 10).stderr)
        }
        self.port = port
    }

    deinit {
        if binary.isRunning {
            binary.send(SIGKILL)
            _ = binary.wait(timeout: 10)
        }
    }

    /// Writes the tokens file into `directory`.
    static func tokensFile(in directory: String) throws -> String {
        let path = directory + "/tokens"
        try ("# apps\n" + tokens.map { $0 + "  # an app\n" }.joined()).write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// GETs `pathAndQuery` (starting with `/`) from serve.
    func get(_ pathAndQuery: String, headers: [String] = [], timeout: Double = 30) throws -> HTTPAnswer {
        try HTTPAnswer.get(base + pathAndQuery, headers: headers, timeout: timeout)
    }

    /// GETs an OMDb query with the first token.
    func omdb(_ query: String) throws -> HTTPAnswer {
        try get("/?apikey=\(Self.tokens[0])&" + query)
    }

    enum ServeError: Error {
        case didNotStart(String)
    }
}

/// One HTTP answer, fetched with curl: a real client, and one apps use.
struct HTTPAnswer {
    var status: Int
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The value of header `name` (any case).
    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// GETs `url` with curl; a status of 0 means no HTTP answer (the connection was refused or cut).
    static func get(_ url: String, headers: [String] = [], timeout: Double = 30) throws -> HTTPAnswer {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("serve-get-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let head = scratch.path + ".head"
        let body = scratch.path + ".body"
        defer {
            try? FileManager.default.removeItem(atPath: head)
            try? FileManager.default.removeItem(atPath: body)
        }
        var arguments = ["-s", "-g", "--max-time", "\(timeout)", "-D", head, "-o", body, "-w", "%{http_code}"]
        for header in headers { arguments += ["-H", header] }
        let output = try ReliabilityProcess.run("/usr/bin/curl", arguments + [url])
        var answer = HTTPAnswer(
            status: Int(output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, headers: [:],
            body: (try? Data(contentsOf: URL(fileURLWithPath: body))) ?? Data())
        let headText = (try? String(contentsOfFile: head, encoding: .utf8)) ?? ""
        for line in headText.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            answer.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        return answer
    }

    /// GETs every URL at once (curl --parallel, up to `parallel` connections), each body into
    /// `directory/N`; returns each URL's status in order.
    static func storm(_ urls: [String], parallel: Int, directory: String) throws -> [Int] {
        var config = ""
        for (index, url) in urls.enumerated() {
            config += "url = \"\(url)\"\noutput = \"\(directory)/\(index)\"\n"
        }
        let configPath = directory + "/curl.config"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let output = try ReliabilityProcess.run(
            "/usr/bin/curl",
            [
                "-s", "-g", "--parallel", "--parallel-immediate", "--parallel-max", "\(parallel)", "--max-time", "180",
                "-w", "%{url_effective} %{http_code}\n", "-K", configPath,
            ])
        var statuses: [String: Int] = [:]
        for line in output.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            statuses[String(parts[0])] = Int(parts[1])
        }
        return urls.map { statuses[$0] ?? 0 }
    }
}

/// `work` on a thread of its own; `value` waits for its result.
final class OnAThread<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Value?

    init(_ work: @escaping @Sendable () -> Value) {
        Thread.detachNewThread { [self] in
            result = work()
            done.signal()
        }
    }

    var value: Value {
        done.wait()
        defer { done.signal() }
        return result!
    }
}
