import Foundation
import Testing

extension Reliability {
    /// A recognisable API key taken through whole runs, with every log turned up and errors forced,
    /// then looked for everywhere filmcache writes or shows anything.
    @Suite struct KeyHygieneTests {
        /// The test's directory: database, metrics file, lock file, key file and worklists.
        let scratch: ReliabilityScratch
        /// The key: recognisable, and accepted by the stand-in.
        static let key = "KEYHYGIENE1234"

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("key")
        }

        /// Whether `text` holds the key, in any letter case.
        func hits(_ text: String) -> Bool {
            text.lowercased().contains(Self.key.lowercased())
        }

        /// Whether raw bytes (a database page, a WAL frame) hold the key, in any ASCII letter case.
        func hits(_ data: Data) -> Bool {
            hits(String(decoding: data.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self))
        }

        /// The process arguments of `run` as the kernel shows them, NUL-separated; read until they show
        /// (for up to two seconds), as a process just started or just ended shows none.
        func arguments(of run: BackgroundRun) throws -> Data {
            var shown = Data()
            try waitFor(
                "the arguments in /proc", seconds: 2, every: 0.01, while: run.isRunning, ifNotMet: .returnFalse
            ) {
                let handle = FileHandle(forReadingAtPath: "/proc/\(run.pid)/cmdline")
                shown = ((try? handle?.readToEnd()) ?? nil) ?? Data()
                try? handle?.close()
                return !shown.isEmpty
            }
            return shown
        }

        /// Two warms (environment and key file; JSON and logfmt logs; trace level; faults), then every report.
        @Test func theKeyIsInNoOutputLogFileDatabaseOrProcessArgument() async throws {
            try await offThePool {
                let standIn = try StandInProcess(
                    arguments: ["--fault-rate", "0.25", "--faults", "all", "--seed", "9", "--latency-ms", "5"],
                    keys: Self.key)
                let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
                let lines = try String(contentsOfFile: watchlist, encoding: .utf8).split(separator: "\n").map(
                    String.init)
                let first = try scratch.write(
                    "first.txt", Array(lines.prefix(lines.count / 2).joined(separator: "\n").utf8))
                let second = try scratch.write(
                    "second.txt", Array(lines.dropFirst(lines.count / 2).joined(separator: "\n").utf8))
                let keyFile = try scratch.write("omdb.key", Array((Self.key + "\n").utf8))
                let metrics = scratch.dir + "/filmcache.prom"
                let common = [
                    "warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--rate", "60", "--max-in-flight", "4",
                    "--retry-base", "0.01", "--retry-cap", "0.05", "--max-attempts", "2", "--log-level", "trace",
                    "--metrics-file", metrics, "--progress-interval", "0.2",
                ]
                var outputs: [(String, BuiltBinaries.Output)] = []
                var snapshots: [(String, Data)] = []

                // Two warms, one with the key in the environment and JSON logs, one from a key file and logfmt.
                let runs: [(name: String, arguments: [String], environment: [String: String])] = [
                    (
                        "warm, key from the environment, JSON logs", common + ["--log-format", "json", first],
                        ["OMDB_API_KEY": Self.key]
                    ),
                    (
                        "warm, key from a file, logfmt",
                        common + ["--log-format", "logfmt", "--api-key-file", keyFile, second], [:]
                    ),
                ]
                for run in runs {
                    // Paced so that it runs for over a second: a finished process's arguments read as empty.
                    let running = try BackgroundRun("filmcache", run.arguments, environment: run.environment)
                    let cmdline = try arguments(of: running)
                    try waitFor(
                        "the -wal file", seconds: 10, every: 0.02, while: running.isRunning, ifNotMet: .returnFalse
                    ) { FileManager.default.fileExists(atPath: scratch.db + "-wal") }
                    #expect(running.isRunning && !cmdline.isEmpty, "\(run.name) was looked at while it ran")
                    #expect(!hits(cmdline), "\(run.name): the key is not a process argument")
                    for suffix in ["", "-wal", "-shm"] {
                        if let data = try? Data(contentsOf: URL(fileURLWithPath: scratch.db + suffix)) {
                            snapshots.append(("\(run.name): cache.sqlite\(suffix) while it ran", data))
                        }
                    }
                    let out = running.wait()
                    #expect(out.status == 0 || out.status == 75, "\(run.name): \(out.stderr.suffix(2_000))")
                    outputs.append((run.name, out))
                }
                #expect(try standIn.requestCount() > 292, "the faults forced retries")
                let logged = outputs.map(\.1.stderr).joined()
                #expect(
                    logged.contains("transient failure") && logged.contains("progress"),
                    "error paths and progress logged")

                // Every report, with the key in the environment so that each picks its ledger by it.
                let environment = ["OMDB_API_KEY": Self.key]
                for command in [
                    ["quota", "--db", scratch.db, "--json"], ["quota", "--db", scratch.db],
                    ["stats", "--db", scratch.db, watchlist], ["stats", "--db", scratch.db, "--json", watchlist],
                    ["plan", "--db", scratch.db, "--json", "--ids", watchlist],
                    ["plan", "--db", scratch.db, watchlist],
                    ["show", "tt0100044", "--db", scratch.db, "--json"],
                ] {
                    let out = try BuiltBinaries.run(
                        "filmcache", command + ["--log-level", "trace"], environment: environment)
                    #expect(out.status == 0, "\(command.joined(separator: " ")): \(out.stderr)")
                    outputs.append((command.joined(separator: " "), out))
                }

                for (name, out) in outputs {
                    #expect(!hits(out.stdout) && !hits(out.stderr), "\(name) shows the key")
                    #expect(!out.stderr.contains("apikey="), "\(name) logs no request URL")
                }
                // Every file left beside the database, the database and its WAL included; only the key file holds it.
                let files = try FileManager.default.contentsOfDirectory(atPath: scratch.dir).filter { $0 != "omdb.key" }
                #expect(files.contains("cache.sqlite") && files.contains("filmcache.prom"))
                for file in files {
                    snapshots.append((file, try Data(contentsOf: URL(fileURLWithPath: scratch.dir + "/" + file))))
                }
                for (name, data) in snapshots {
                    #expect(!hits(data), "\(name) holds the key")
                }
                // The ledger names the key by a slow keyed hash in full, never a short fast one.
                let names = try scratch.column(
                    "SELECT key_fingerprint FROM quota_ledger UNION SELECT key_fingerprint FROM quota_calls"
                        + " UNION SELECT key_fingerprint FROM runs")
                #expect(
                    names.count == 1 && names.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) }, "\(names)")
            }
        }
    }
}
