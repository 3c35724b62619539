import Foundation
import OMDbStandIn
import SplitMix
import Testing

extension Reliability {
    /// Bad worklists, job files and databases thrown at a cache that already holds films.
    ///
    /// Each must end with a message that names the file (and the line or key, where there is one) and
    /// the documented exit status, and must leave the films, negative answers and ledger already in the
    /// cache exactly as they were, without a call to OMDb.
    @Suite struct BadInputTests {
        /// A key the stand-in accepts.
        static let key = "test-key-e2e"

        /// A cache filled once from the sample watchlist; every test works on its own copy.
        static let template = Result { () throws -> ReliabilityScratch in
            let scratch = try ReliabilityScratch("template").heldUntilExit()
            let standIn = try StandInProcess()
            let out = try BuiltBinaries.run(
                "filmcache",
                [
                    "warm", "--db", scratch.db, "--rate", "0", "--base-url", standIn.baseURL,
                    BuiltBinaries.packageRoot + "/Data/watchlist.txt",
                ], environment: ["OMDB_API_KEY": key])
            guard out.status == 0, FileManager.default.fileExists(atPath: scratch.db) else {
                throw ReliabilityError.standIn(path: "(template warm)", answer: out.stderr)
            }
            return scratch
        }

        /// The test's directory, holding its copy of the filled cache.
        let scratch: ReliabilityScratch
        /// A stand-in that must never be called.
        let standIn: StandInProcess
        /// The cache as it was before the test: films, their bodies and times, lookups, ledger.
        let before: String

        /// Copies the filled cache into a fresh directory and starts a stand-in beside it.
        init() async throws {
            (scratch, standIn, before) = try await offThePool {
                let scratch = try ReliabilityScratch("bad")
                try FileManager.default.copyItem(atPath: try Self.template.get().db, toPath: scratch.db)
                return (scratch, try StandInProcess(), try Self.state(scratch, scratch.db))
            }
        }

        /// Everything a reader of the cache could lose, as one comparable line.
        static func state(_ scratch: ReliabilityScratch, _ database: String) throws -> String {
            try scratch.sqlite(
                """
                SELECT (SELECT count(*) FROM films), (SELECT sum(length(raw_json)) FROM films),
                       (SELECT sum(length(title)) FROM films), (SELECT min(fetched_at) || max(fetched_at) FROM films),
                       (SELECT count(*) FROM lookups), (SELECT sum(used) FROM quota_ledger)
                """, database: database)
        }

        /// Checks the cache lost nothing and OMDb was not called.
        func expectNothingLost(_ context: String, database: String? = nil) throws {
            #expect(try scratch.sqlite("PRAGMA integrity_check", database: database) == "ok", "\(context)")
            #expect(try Self.state(scratch, database ?? scratch.db) == before, "the cache is as it was: \(context)")
            #expect(try standIn.requestCount() == 0, "no call to OMDb: \(context)")
        }

        /// `filmcache warm` on the scratch database against the stand-in, logging in the human format
        /// so that messages can be matched as they are written.
        func warm(_ arguments: [String], database: String? = nil) throws -> BuiltBinaries.Output {
            try BuiltBinaries.run(
                "filmcache",
                ["warm", "--db", database ?? scratch.db, "--base-url", standIn.baseURL, "--rate", "0"]
                    + ["--log-format", "human"] + arguments,
                environment: ["OMDB_API_KEY": Self.key])
        }

        /// Mounts a tmpfs of `size` at `name` in the test directory and copies the cache onto it.
        func cacheOnTmpfs(_ name: String, size: String) throws -> (mount: ReliabilityMount, database: String) {
            let mount = try ReliabilityMount(at: scratch.dir + "/" + name, size: size)
            let database = mount.path + "/cache.sqlite"
            do {
                try FileManager.default.copyItem(atPath: scratch.db, toPath: database)
            } catch {
                mount.remove()
                throw error
            }
            return (mount, database)
        }

        // MARK: - Worklists

        /// Each bad worklist: the documented status, warnings naming file and line, the rest of the file used.
        @Test(arguments: WorklistCase.all)
        func aBadWorklistIsReportedByFileAndLineAndLosesNothing(_ bad: WorklistCase) async throws {
            try await offThePool {
                let path = scratch.dir + "/" + bad.fileName
                switch bad.content {
                case .bytes(let bytes): try scratch.write(bad.fileName, bytes)
                case .directory:
                    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
                case .absent: break
                }
                let out = try warm([path])
                #expect(out.status == bad.status, "\(bad.name): \(out.stderr.prefix(2_000))")
                for message in bad.messages {
                    let expected = message.replacingOccurrences(of: "$FILE", with: path)
                    #expect(
                        out.stderr.contains(expected), "\(bad.name): wanted \(expected) in \(out.stderr.prefix(2_000))")
                }
                if let considered = bad.considered {
                    #expect(
                        out.stdout.range(of: #"considered\s+\#(considered)\b"#, options: .regularExpression) != nil,
                        "\(bad.name): \(out.stdout)")
                }
                if bad.quiet { #expect(out.stderr.isEmpty, "\(bad.name): no warning for a well-formed file") }
                let longest = out.stderr.split(separator: "\n").map(\.utf8.count).max() ?? 0
                #expect(
                    longest < 1_024,
                    "\(bad.name): a message quotes the start of a line, not all of it (\(longest) bytes)")
                try expectNothingLost(bad.name)
            }
        }

        // MARK: - Job files

        /// Each bad job file: exit 78 before anything runs, one line per problem naming file, line and key.
        @Test(arguments: JobFileCase.all)
        func aBadJobFileExits78NamingFileLineAndKeyAndLosesNothing(_ bad: JobFileCase) async throws {
            try await offThePool {
                let path = try scratch.write(bad.fileName, bad.bytes)
                let worklist = try scratch.worklist("fine.txt", ["tt0100044"])
                let out = try warm(["--job", path, worklist])
                #expect(out.status == 78, "\(bad.name): \(out.stderr)")
                for message in bad.messages {
                    let expected = "filmcache: job file " + message.replacingOccurrences(of: "$FILE", with: path)
                    #expect(out.stderr.contains(expected), "\(bad.name): wanted \(expected) in \(out.stderr)")
                }
                try expectNothingLost(bad.name)
            }
        }

        // MARK: - Databases

        /// Random bytes and a truncated cache where the database should be: every command exits 74 and writes nothing.
        @Test func aFileThatIsNotSQLiteExits74FromEveryCommandAndIsLeftAlone() async throws {
            try await offThePool {
                var rng = SplitMix64(seed: 74)
                let path = try scratch.write(
                    "other.sqlite", (0..<8_192).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
                let truncated = try scratch.write(
                    "truncated.sqlite", try Data(contentsOf: URL(fileURLWithPath: scratch.db)).prefix(300_000))
                let worklist = try scratch.worklist("fine.txt", ["tt0100044"])
                for (database, problem) in [
                    (path, "file is not a database"), (truncated, "database disk image is malformed"),
                ] {
                    let bytes = try Data(contentsOf: URL(fileURLWithPath: database))
                    let commands = [
                        ["warm", "--db", database, "--base-url", standIn.baseURL, worklist],
                        ["plan", "--db", database, worklist], ["stats", "--db", database, worklist],
                        ["quota", "--db", database], ["show", "tt0100044", "--db", database],
                    ]
                    for command in commands {
                        let out = try BuiltBinaries.run("filmcache", command, environment: ["OMDB_API_KEY": Self.key])
                        #expect(out.status == 74, "\(command[0]): \(out.stderr)")
                        #expect(
                            out.stderr.contains("cache database \(database): \(problem)"),
                            "\(command[0]): \(out.stderr)")
                        #expect(
                            try Data(contentsOf: URL(fileURLWithPath: database)) == bytes, "\(command[0]) wrote nothing"
                        )
                    }
                }
                try expectNothingLost("not a database")
            }
        }

        /// A database path whose directory is missing, or that is itself a directory.
        @Test func aDatabaseInAMissingDirectoryOrThatIsADirectoryExits74() async throws {
            try await offThePool {
                let worklist = try scratch.worklist("fine.txt", ["tt0100044"])
                let missing = scratch.dir + "/absent/cache.sqlite"
                let out = try warm([worklist], database: missing)
                #expect(out.status == 74)
                #expect(
                    out.stderr.contains("cannot take the run lock \(missing).lock: No such file or directory"),
                    "\(out.stderr)")
                #expect(!FileManager.default.fileExists(atPath: scratch.dir + "/absent"), "nothing is created")

                let directory = scratch.dir + "/a-directory"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                let onDirectory = try warm([worklist], database: directory)
                #expect(onDirectory.status == 74)
                #expect(
                    onDirectory.stderr.contains(
                        "cannot open cache database \(directory): unable to open database file: Is a directory"),
                    "\(onDirectory.stderr)")
                try expectNothingLost("missing directory")
            }
        }

        /// A `chmod 444` cache file, for a user that cannot override it.
        @Test(.enabled(if: Unprivileged.isPossible, Comment(rawValue: Unprivileged.impossible)))
        func aReadOnlyDatabaseFileExits74BeforeAnyCall() async throws {
            try await offThePool {
                // tt0101009 is in the corpus but not in the cache: a warm that could write would call for it.
                let worklist = try scratch.worklist("fine.txt", ["tt0100044", "tt0101009"])
                try Unprivileged.handOver(scratch.dir, readOnly: scratch.db)
                let out = try Unprivileged.run(
                    ["warm", "--db", scratch.db, "--base-url", standIn.baseURL, worklist],
                    environment: ["OMDB_API_KEY": Self.key])
                #expect(out.status == 74, "\(out.stderr)")
                #expect(
                    out.stderr.contains("cache database \(scratch.db): attempt to write a readonly database"),
                    "\(out.stderr)")
                try expectNothingLost("read-only file")
            }
        }

        /// A cache on a file system mounted read-only: `warm` exits 74 saying so; `plan` reads it as it is
        /// (no -wal beside it and nothing able to write it there), as readers do once a sqlite3 session
        /// has removed -wal and -shm from a directory they cannot write.
        @Test(.enabled(if: ReliabilityMount.isPossible, Comment(rawValue: ReliabilityMount.impossible)))
        func aDatabaseOnAReadOnlyFileSystemExits74BeforeAnyCall() async throws {
            try await offThePool {
                let (mount, database) = try cacheOnTmpfs("ro", size: "4m")
                defer { mount.remove() }
                try mount.remount(readOnly: true)
                let worklist = try scratch.worklist("fine.txt", ["tt0100044", "tt0101009"])
                let out = try warm([worklist], database: database)
                #expect(out.status == 74, "\(out.stderr)")
                #expect(
                    out.stderr.contains("cannot take the run lock \(database).lock: Read-only file system"),
                    "\(out.stderr)"
                )
                let plan = try BuiltBinaries.run("filmcache", ["plan", "--db", database, worklist])
                #expect(plan.status == 0, "\(plan.stderr)")
                #expect(plan.stdout.contains("considered"), "\(plan.stdout)")
                try mount.remount(readOnly: false)
                try expectNothingLost("read-only file system", database: database)
            }
        }

        /// A cache on a 1 MB file system that fills up during the warm.
        @Test(.enabled(if: ReliabilityMount.isPossible, Comment(rawValue: ReliabilityMount.impossible)))
        func aFullDiskExits74KeepsEveryCommittedRowAndStopsCalling() async throws {
            try await offThePool {
                let (mount, database) = try cacheOnTmpfs("full", size: "1m")
                defer { mount.remove() }
                let rows = "SELECT imdb_id || ' ' || length(raw_json) || ' ' || fetched_at FROM films ORDER BY 1"
                let committed = Set(try scratch.column(rows, database: database))
                // The first 300 generated films are the sample corpus, already cached; the rest are new.
                let generated = try StandInProcess(arguments: ["--generate", "4000"], corpus: nil)
                let worklist = try scratch.worklist("new.txt", GeneratedIDs.first(4_000).dropFirst(300))
                let out = try BuiltBinaries.run(
                    "filmcache",
                    [
                        "warm", "--db", database, "--base-url", generated.baseURL, "--rate", "0", "--max-in-flight",
                        "8",
                        worklist,
                    ],
                    environment: ["OMDB_API_KEY": Self.key])
                #expect(out.status == 74, "\(out.stderr.suffix(2_000))")
                #expect(
                    out.stderr.contains("cache database \(database): database or disk is full"),
                    "\(out.stderr.suffix(2_000))")
                #expect(try scratch.sqlite("PRAGMA integrity_check", database: database) == "ok")
                let after = Set(try scratch.column(rows, database: database))
                #expect(after.isSuperset(of: committed), "every film committed before is still there, unchanged")
                let served = try generated.requestCount()
                let ledger = Int(try scratch.sqlite("SELECT sum(used) FROM quota_ledger", database: database)) ?? -1
                #expect(ledger >= 292 + served, "every call counted, though the disk is full")
                // The batch that failed and the one filling while it committed, plus two per worker.
                #expect(served <= 2 * 256 + 2 * 8, "calls stop once results cannot be stored: \(served) of 3700")
            }
        }
    }
}

/// A worklist that names no ID, or names IDs among lines that are no IDs.
struct WorklistCase: Sendable, CustomTestStringConvertible {
    /// What is at the worklist's path.
    enum Content: Sendable {
        /// A file holding these bytes.
        case bytes([UInt8])
        /// A directory.
        case directory
        /// Nothing.
        case absent
    }

    /// What the case shows, as the test report names it.
    var name: String
    /// The worklist's name in the test directory.
    var fileName: String
    /// What is at the worklist's path.
    var content: Content
    /// The exit status `warm` must end with.
    var status: Int32
    /// Texts standard error must contain; `$FILE` stands for the worklist's path.
    var messages: [String]
    /// The distinct IDs the summary must count, for a worklist that is used.
    var considered: Int?
    /// Whether nothing at all may be logged.
    var quiet = false

    /// The case's name in the test report.
    var testDescription: String { name }

    /// `count` seeded random bytes, the first a NUL so that no format detection takes them for JSON or CSV.
    static func junk(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        return [0] + (1..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// An ID with SQL after it, the classic injection.
    static let sql = "tt1'; DROP TABLE films;--"

    /// Every case.
    static let all: [WorklistCase] = [
        WorklistCase(
            name: "binary junk", fileName: "junk.bin", content: .bytes(junk(65_536, seed: 1)), status: 65,
            messages: ["filmcache: worklist $FILE names no IMDb ID or title ("]),
        WorklistCase(
            name: "binary junk around an ID", fileName: "junk-id.bin",
            content: .bytes(junk(4_096, seed: 2) + Array("\ntt0100044\n".utf8) + junk(4_096, seed: 3)), status: 0,
            messages: ["$FILE:1: not an IMDb ID or title URL, skipped: \""], considered: 1),
        WorklistCase(
            name: "a 10 MB line", fileName: "long.txt",
            content: .bytes(Array(repeating: UInt8(ascii: "x"), count: 10 << 20) + Array("\ntt0100044\n".utf8)),
            status: 0,
            messages: ["$FILE:1: not an IMDb ID or title URL, skipped: \"" + String(repeating: "x", count: 80) + "…\""],
            considered: 1),
        WorklistCase(
            name: "SQL in IDs", fileName: "sql.txt",
            content: .bytes(
                Array(
                    (sql + "\ntt0100044'; DROP TABLE films;--\nhttps://www.imdb.com/title/" + sql
                        + "/\n'; DELETE FROM films; --\ntt0100044\n").utf8)),
            status: 0,
            messages: [
                "$FILE:1: not an IMDb ID or title URL, skipped: \"\(sql)\"",
                "$FILE:2: not an IMDb ID or title URL, skipped: \"tt0100044'; DROP TABLE films;--\"",
                "$FILE:3: not an IMDb ID or title URL, skipped: \"https://www.imdb.com/title/\(sql)/\"",
                "$FILE:4: not an IMDb ID or title URL, skipped: \"'; DELETE FROM films; --\"",
            ], considered: 1),
        WorklistCase(
            name: "SQL in a JSON worklist", fileName: "sql.json",
            content: .bytes(Array("[{\"imdbID\": \"\(sql)\"},\n {\"imdbID\": \"tt0100044\"}]\n".utf8)), status: 0,
            messages: ["$FILE:1: element 1: imdbID is not an IMDb title ID, skipped: \"\(sql)\""], considered: 1),
        WorklistCase(
            name: "SQL in a CSV worklist", fileName: "sql.csv",
            content: .bytes(Array("Const,Title\n\"\(sql)\",x\ntt0100044,y\n".utf8)), status: 0,
            messages: ["$FILE:2: Const is not an IMDb title ID, skipped: \"\(sql)\""], considered: 1),
        WorklistCase(
            name: "BOM and CRLF", fileName: "bom.txt",
            content: .bytes(Array("\u{FEFF}tt0100044\r\nhttps://www.imdb.com/title/tt0100075/\r\n# c\r\n".utf8)),
            status: 0, messages: [], considered: 2, quiet: true),
        WorklistCase(
            name: "an empty file", fileName: "empty.txt", content: .bytes([]), status: 65,
            messages: ["filmcache: worklist $FILE names no IMDb ID or title\n"]),
        WorklistCase(
            name: "comments and blank lines only", fileName: "comments.txt",
            content: .bytes(Array("# nothing\n\n   \n  # here\r\n".utf8)), status: 65,
            messages: ["filmcache: worklist $FILE names no IMDb ID or title\n"]),
        WorklistCase(
            name: "a missing file", fileName: "absent.txt", content: .absent, status: 65,
            messages: ["filmcache: cannot read worklist $FILE: No such file or directory\n"]),
        WorklistCase(
            name: "a directory", fileName: "a-directory", content: .directory, status: 65,
            messages: ["filmcache: cannot read worklist $FILE: it is a directory, not a file or a pipe\n"]),
    ]
}

/// A job file with mistakes; every one must be reported with its line.
struct JobFileCase: Sendable, CustomTestStringConvertible {
    /// What the case shows, as the test report names it.
    var name: String
    /// The job file's name in the test directory; its extension picks TOML or JSON.
    var fileName: String
    /// The job file's content.
    var bytes: [UInt8]
    /// Lines standard error must contain after `filmcache: job file `; `$FILE` stands for the job file's path.
    var messages: [String]

    /// The case's name in the test report.
    var testDescription: String { name }

    /// Every case.
    static let all: [JobFileCase] = [
        JobFileCase(
            name: "wrong types", fileName: "types.toml",
            bytes: Array("rate = \"fast\"\nburst = 2.5\nmax_in_flight = true\nworklists = 7\n".utf8),
            messages: [
                "$FILE:1: rate: expected a number, found a string",
                "$FILE:2: burst: expected an integer, found a floating-point number",
                "$FILE:3: max_in_flight: expected an integer, found a boolean",
                "$FILE:4: worklists: expected an array of strings, found an integer",
            ]),
        JobFileCase(
            name: "unknown keys", fileName: "unknown.toml",
            bytes: Array("colour = \"blue\"\n[fetch]\nrate = 1\n".utf8),
            messages: ["$FILE:1: unknown key 'colour'", "$FILE:2: unknown key 'fetch'"]),
        JobFileCase(
            name: "JSON with wrong types and an unknown key", fileName: "job.json",
            bytes: Array("{\n  \"db\": 5,\n  \"colour\": 1,\n  \"daily_limit\": \"many\"\n}\n".utf8),
            messages: [
                "$FILE:2: db: expected a string, found an integer", "$FILE:3: unknown key 'colour'",
                "$FILE:4: daily_limit: expected an integer, found a string",
            ]),
        JobFileCase(
            name: "not TOML", fileName: "syntax.toml", bytes: Array("rate = 2\nburst = [\n".utf8),
            messages: ["$FILE:2: not valid TOML"]),
        JobFileCase(
            name: "binary junk", fileName: "junk.toml", bytes: WorklistCase.junk(4_096, seed: 4),
            messages: ["$FILE: not UTF-8 text"]),
    ]
}
