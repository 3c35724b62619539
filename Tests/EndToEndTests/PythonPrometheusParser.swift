import Foundation

/// The Prometheus project's Python client parser (`prometheus_client.parser`), run on text filmcache wrote.
///
/// A second, independent reader of the text format beside the test suite's own. Debian ships it as
/// `python3-prometheus-client` (Scripts/install-deps.sh installs it); tests that need it are skipped,
/// with the reason, where no python3 on the machine can import it.
enum PythonPrometheusParser {
    /// Why a test needing the parser is skipped.
    static let missing =
        "no python3 here can import prometheus_client (Scripts/install-deps.sh installs python3-prometheus-client)"

    /// The first python3 that imports `prometheus_client`, if any.
    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates =
            ["/usr/bin/python3", "/usr/local/bin/python3"] + path.split(separator: ":").map { $0 + "/python3" }
        return candidates.first { candidate in
            FileManager.default.isExecutableFile(atPath: candidate)
                && (try? run(candidate, ["-c", "import prometheus_client.parser"], input: "").status) == 0
        }
    }()

    /// Whether the parser can be run.
    static var isAvailable: Bool { python != nil }

    /// One family as the Python client reads it (it drops a counter's `_total` from the family name).
    struct Family: Decodable, Equatable {
        /// The family's name.
        var name: String
        /// Its type.
        var type: String
        /// Its samples.
        var samples: [Sample]
    }

    /// One sample as the Python client reads it.
    struct Sample: Decodable, Equatable {
        /// The sample's metric name.
        var name: String
        /// Its labels.
        var labels: [String: String]
        /// Its value as Python's `repr` writes it.
        var value: String
    }

    /// The families in `text`; throws with Python's message when it refuses the text.
    static func parse(_ text: String) throws -> [Family] {
        guard let python else { throw ParserError(message: missing) }
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = [{"name": f.name, "type": f.type,
                    "samples": [{"name": s.name, "labels": s.labels, "value": repr(s.value)} for s in f.samples]}
                   for f in text_string_to_metric_families(sys.stdin.read())]
            print(json.dumps(out))
            """
        let result = try run(python, ["-c", script], input: text)
        guard result.status == 0 else { throw ParserError(message: result.stderr) }
        return try JSONDecoder().decode([Family].self, from: Data(result.stdout.utf8))
    }

    /// Python's complaint.
    struct ParserError: Error, CustomStringConvertible {
        /// What Python said.
        var message: String
        /// The message.
        var description: String { message }
    }

    private static func run(_ executable: String, _ arguments: [String], input: String) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = ReadAll(stdout.fileHandleForReading)
        let err = ReadAll(stderr.fileHandleForReading)
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: out.wait(), as: UTF8.self),
            String(decoding: err.wait(), as: UTF8.self)
        )
    }
}
