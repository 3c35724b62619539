import Foundation
import OMDbStandIn
import Testing

extension Reliability {
    /// Settings that cannot work are refused before the first call, with the setting and its range named.
    @Suite struct SettingsTests {
        /// The test's directory and database.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("settings")
        }

        /// A worklist of ten generated IDs.
        func worklist() throws -> String { try scratch.worklist("ten.txt", GeneratedIDs.first(10)) }

        /// Whether the run charged anything: no database, or an empty ledger.
        func ledgerIsEmpty() throws -> Bool {
            guard FileManager.default.fileExists(atPath: scratch.db) else { return true }
            return try scratch.sqlite("SELECT coalesce(sum(used), 0) FROM quota_ledger") == "0"
        }

        @Test func aRunThatStopsWhileItsKeyIsHashedExitsAsItMeant() throws {
            // The key's slow name is worked out on a thread of its own from the moment the key is
            // read; a base URL refused right after ends the process with that thread mid-hash. The
            // exit must stay the refusal's (an earlier try, through libcrypto's PBKDF2, crashed here
            // as the exit tore libcrypto down under the thread). Each run a key of its own.
            let list = try worklist()
            for run in 0..<20 {
                let out = try BuiltBinaries.run(
                    "filmcache", ["warm", "--db", scratch.db, "--base-url", "ftp://127.0.0.1/", "--rate", "0", list],
                    environment: ["OMDB_API_KEY": "\(key)\(run)"])
                #expect(out.status == 78, "run \(run): \(out.stderr)")
                #expect(out.stderr.hasPrefix("filmcache: --base-url"), "run \(run): \(out.stderr)")
            }
        }

        @Test(arguments: [
            "file:///etc/passwd#", "http://127.0.0.1:99999/", "http://127.0.0.1:0/", "ftp://127.0.0.1/",
            "gopher://127.0.0.1:70/", "http:///", "127.0.0.1:8765", "http://127.0.0.1:8765/#x",
        ])
        func aBaseURLThatCannotWorkIsRefusedBeforeAnyCall(url: String) throws {
            let out = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", scratch.db, "--base-url", url, "--rate", "0", try worklist()],
                environment: ["OMDB_API_KEY": key])
            #expect(out.status == 78, "\(url): \(out.stderr)")
            #expect(out.stderr.contains("--base-url"), "\(out.stderr)")
            #expect(try ledgerIsEmpty(), "no call charged for \(url)")
            #expect(!out.stderr.contains(key))
        }

        @Test func aJobFileBaseURLThatCannotWorkIsRefusedNamingTheKey() throws {
            let list = try worklist()
            let job = try scratch.write(
                "job.toml",
                Array("worklists = [\"\(list)\"]\ndb = \"\(scratch.db)\"\nbase_url = \"file:///etc/passwd#\"\n".utf8))
            let out = try BuiltBinaries.run("filmcache", ["warm", "--job", job], environment: ["OMDB_API_KEY": key])
            #expect(out.status == 78, "\(out.stderr)")
            #expect(out.stderr.contains("base_url") && out.stderr.contains("file"), "\(out.stderr)")
            #expect(try ledgerIsEmpty())
        }

        /// Absurd values that once crashed a warm (overflow in the pipeline or the pacing), or made no sense.
        static let absurd: [(flag: String, key: String, value: String, range: String)] = [
            ("--max-in-flight", "max_in_flight", "1152921504606846976", "from 1 to 256"),
            ("--rate", "rate", "1e-20", "0 or from 0.001 to 1000"),
            ("--burst", "burst", "9223372036854775807", "from 1 to 1000"),
            ("--max-attempts", "max_attempts", "4611686018427387904", "from 1 to 100"),
            ("--breaker-stop-after", "breaker_stop_after", "9223372036854775807", "from 1 to 1000000"),
            ("--retry-cap", "retry_cap", "1e300", "from 0 to 86400"),
            ("--timeout", "timeout", "1e-300", "from 0.001 to 86400"),
            ("--daily-limit", "daily_limit", "9223372036854775807", "from 0 to 100000000"),
            ("--ttl-days", "ttl_days", "1e300", "from 0 to 36500"),
            ("--max-runtime", "max_runtime", "31536001", "from 1 to 31536000"),
        ]

        @Test(arguments: absurd.map(\.flag))
        func anAbsurdFlagIsRefusedWithItsRangeAndNoCall(flag: String) throws {
            let setting = try #require(Self.absurd.first { $0.flag == flag })
            let out = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", scratch.db, flag, setting.value, try worklist()],
                environment: ["OMDB_API_KEY": key])
            #expect(out.status == 64, "\(flag) \(setting.value): \(out.stderr)")
            #expect(out.stderr.contains("\(flag) must be \(setting.range)"), "\(out.stderr)")
            #expect(try ledgerIsEmpty())
        }

        @Test(arguments: absurd.map(\.key))
        func anAbsurdJobFileValueIsRefusedWithItsRangeAndNoCall(key name: String) throws {
            let setting = try #require(Self.absurd.first { $0.key == name })
            let list = try worklist()
            let job = try scratch.write(
                "job.toml",
                Array("worklists = [\"\(list)\"]\ndb = \"\(scratch.db)\"\n\(name) = \(setting.value)\n".utf8))
            let out = try BuiltBinaries.run("filmcache", ["warm", "--job", job], environment: ["OMDB_API_KEY": key])
            #expect(out.status == 78, "\(name) = \(setting.value): \(out.stderr)")
            #expect(out.stderr.contains(":3: \(name): must be \(setting.range)"), "\(out.stderr)")
            #expect(try ledgerIsEmpty())
        }

        /// serve's settings at their extremes: once a crash at the first request (1e19 s overflowed a
        /// duration), at start-up (1e308), or every connection dropped (1e-300 s to send a head).
        static let serveAbsurd: [(flag: String, key: String, value: String, range: String)] = [
            ("--request-timeout", "request_timeout", "1e19", "from 0.1 to 3600 seconds"),
            ("--request-timeout", "request_timeout", "1e308", "from 0.1 to 3600 seconds"),
            ("--request-head-timeout", "request_head_timeout", "1e19", "from 0.1 to 3600 seconds"),
            ("--request-head-timeout", "request_head_timeout", "1e-300", "from 0.1 to 3600 seconds"),
            ("--answer-ttl-hours", "answer_ttl_hours", "1e308", "from 0 to 87600 hours"),
            ("--negative-ttl-hours", "negative_ttl_hours", "1e19", "from 0 to 87600 hours"),
            ("--io-threads", "io_threads", "0", "from 1 to 256"),
            ("--io-threads", "io_threads", "100000", "from 1 to 256"),
        ]

        @Test(arguments: serveAbsurd.indices)
        func anAbsurdServeSettingIsRefusedWithItsRangeByFlagAndJobFile(index: Int) throws {
            let setting = Self.serveAbsurd[index]
            let tokens = try scratch.write("tokens", Array("app-token-alpha-1\n".utf8))
            let base = ["serve", "--tokens-file", tokens, "--listen", "127.0.0.1:0"]
            let flag = try BuiltBinaries.run(
                "filmcache", base + ["--db", scratch.db, "\(setting.flag)=\(setting.value)"],
                environment: ["OMDB_API_KEY": key])
            #expect(flag.status == 64, "\(setting.flag) \(setting.value): \(flag.stderr)")
            #expect(flag.stderr.contains("\(setting.flag) must be \(setting.range)"), "\(flag.stderr)")
            let job = try scratch.write(
                "serve.toml", Array("db = \"\(scratch.db)\"\n\(setting.key) = \(setting.value)\n".utf8))
            let fromJob = try BuiltBinaries.run("filmcache", base + ["--job", job], environment: ["OMDB_API_KEY": key])
            #expect(fromJob.status == 78, "\(setting.key) = \(setting.value): \(fromJob.stderr)")
            #expect(fromJob.stderr.contains(":2: \(setting.key): must be \(setting.range)"), "\(fromJob.stderr)")
        }

        /// Every numeric flag of `warm` at the edges of what a number can be: a status the help
        /// documents, never a signal, and no call charged for a value refused.
        @Test func everyNumericWarmFlagAtItsExtremesEndsWithAStatusNeverASignal() throws {
            let help = try BuiltBinaries.run("filmcache", ["warm", "--help"], environment: ["COLUMNS": "200"]).stdout
            let numeric = help.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                guard let flag = words.first, flag.hasPrefix("--"), words.count > 1,
                    words[1].hasPrefix("<"),
                    !["<path>", "<url>", "<file>", "<job>", "<db>"].contains(String(words[1])),
                    ![
                        "--db", "--job", "--base-url", "--api-key-file", "--metrics-file", "--posters",
                        "--worklist-format", "--log-level", "--log-format", "--quota-timezone",
                    ].contains(String(flag))
                else { return nil }
                return String(flag)
            }
            #expect(numeric.count >= 20, "\(numeric)")
            let list = try worklist()
            for flag in numeric {
                for value in ["1e308", "-1e308", "1e19", "1e-300", "nan", "inf", "18446744073709551616"] {
                    let out = try BuiltBinaries.run(
                        "filmcache",
                        [
                            "warm", "--db", scratch.db, "--base-url", "http://127.0.0.1:9/", "--no-progress",
                            "\(flag)=\(value)", list,
                        ], environment: ["OMDB_API_KEY": key])
                    #expect(
                        [0, 64, 69, 75, 78].contains(out.status), "\(flag)=\(value): status \(out.status) \(out.stderr)"
                    )
                    if out.status == 64 { #expect(out.stderr.contains(flag) || out.stderr.contains("value")) }
                }
            }
        }

        @Test func retryBaseAboveTheCapIsRefusedByFlagAndJobFile() throws {
            let list = try worklist()
            let flags = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", scratch.db, "--retry-base", "9", "--retry-cap", "2", list],
                environment: ["OMDB_API_KEY": key])
            #expect(flags.status == 64 && flags.stderr.contains("--retry-base is more than --retry-cap"))
            let job = try scratch.write(
                "pair.toml", Array("worklists = [\"\(list)\"]\nretry_base = 9\nretry_cap = 2\n".utf8))
            let file = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", scratch.db, "--job", job], environment: ["OMDB_API_KEY": key])
            #expect(file.status == 78 && file.stderr.contains("retry_base is more than retry_cap"), "\(file.stderr)")
            #expect(try ledgerIsEmpty())
        }

        @Test func aJobFileLogFormatThatIsNotOneIsRefusedNamingTheKey() throws {
            let list = try worklist()
            let job = try scratch.write(
                "job.toml", Array("worklists = [\"\(list)\"]\ndb = \"\(scratch.db)\"\nlog_format = \"text\"\n".utf8))
            let out = try BuiltBinaries.run("filmcache", ["warm", "--job", job], environment: ["OMDB_API_KEY": key])
            #expect(out.status == 78, "\(out.stderr)")
            #expect(out.stderr.contains("log_format") && out.stderr.contains("human, logfmt, json"), "\(out.stderr)")
            #expect(try ledgerIsEmpty())
        }
    }
}
