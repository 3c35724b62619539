import CSQLite
import Foundation
import Testing

/// A plain `show` on a SQLite file, `quota` and `plan` are answered before the argument parser is
/// made (`PlainArguments`); what a user sees must not depend on which of the two answered.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PlainCommandLineEndToEndTests {
    /// A cache with three films, an alias of the first, and an ID OMDb does not know.
    private static func cache(_ scratch: ReliabilityScratch, environment: [String: String] = [:]) throws -> [String] {
        let ids = Array(ServeEndToEndTests.corpusIDs.prefix(3))
        let standIn = try StandInProcess()
        let list = try scratch.worklist("ids.txt", ids)
        let warm = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--no-progress", list],
            environment: environment.merging(["OMDB_API_KEY": "demo"]) { $1 })
        try #require(warm.status == 0, "\(warm.stderr)")
        _ = try scratch.sqlite(
            "INSERT INTO aliases VALUES ('tt7777777', '\(ids[0])', '2026-11-01T00:00:00Z');"
                + " INSERT INTO lookups VALUES ('tt8888888', 'not_found', 'Incorrect IMDb ID.', 200, 1,"
                + " '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z')")
        return ids
    }

    @Test func showPrintsWhatTheParsedCommandPrintsForEveryCommandLine() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("show-fast")
            defer { scratch.removeUnlessKept() }
            let ids = try Self.cache(scratch)
            let link = scratch.dir + "/link.sqlite"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch.db)
            let lines: [[String]] = [
                ["show", "--db", scratch.db, ids[0]],
                ["show", ids[1], "--db", scratch.db, "--json"],
                ["show", "--json", "--db=\(scratch.db)", "https://www.imdb.com/title/\(ids[2])/"],
                ["show", "--db", link, " \(ids[0]) "],
                ["show", "--db", scratch.db, "\t\u{00A0}\(ids[1])\u{3000}"],
                ["show", "--db", scratch.db, "tt7777777"],
                ["show", "--db", scratch.db, "--json", "tt7777777"],
                ["show", "--db", scratch.db, "tt8888888"],
                ["show", "--db", scratch.db, "tt9999999"],
                // What the parsed command reports on, handed to it.
                ["show", "--db", scratch.db, "nope"],
                ["show", "--db", scratch.dir + "/absent.sqlite", ids[0]],
                ["show", "--db", scratch.dir, ids[0]],
                ["show", "--db", "postgresql://nobody@127.0.0.1:1/none", ids[0]],
                ["show", "--db", scratch.db, ids[0], ids[1]],
                ["show", "--db=", scratch.db, ids[0]],
                ["show", "--json", "--json", "--db", scratch.db, ids[0]],
                ["show", "--help"],
                ["show"],
            ]
            Self.expectTheParsersAnswers(lines)
            let shown = try BuiltBinaries.run("filmcache", ["show", "--db", scratch.db, ids[0]])
            #expect(shown.status == 0 && shown.stdout.contains(ids[0]), "\(shown.stdout)")
            let alias = try BuiltBinaries.run("filmcache", ["show", "--db", scratch.db, "tt7777777"])
            #expect(alias.stderr.contains("is an alias of \(ids[0])"), "\(alias.stderr)")
            let unknown = try BuiltBinaries.run("filmcache", ["show", "--db", scratch.db, "tt8888888"])
            #expect(unknown.status == 1 && unknown.stderr.contains("OMDb does not know it"), "\(unknown.stderr)")
        }
    }

    /// A cache another process holds locked: the plain `show` waits out the busy timeout and fails
    /// once, as the parsed command does (it used to hand the line to the parser, which waited again).
    @Test func aShowOfALockedCacheFailsAsTheParsedCommandFails() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("show-locked")
            defer { scratch.removeUnlessKept() }
            let ids = try Self.cache(scratch)
            var db: OpaquePointer?
            try #require(sqlite3_open_v2(scratch.db, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
            defer { sqlite3_close_v2(db) }
            let lock = "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE films SET title = title"
            try #require(sqlite3_exec(db, lock, nil, nil, nil) == SQLITE_OK)
            // Each of the two waits out the busy timeout once (10 s).
            let line = ["show", "--db", scratch.db, ids[0]]
            let plain = try BuiltBinaries.run("filmcache", line)
            let parsed = try BuiltBinaries.run("filmcache", line + ["--log-level", "notice"])
            #expect(plain.status == 74 && plain.stderr.contains("database is locked"), "\(plain.stderr)")
            #expect(plain.stdout.isEmpty, "\(plain.stdout)")
            #expect(plain.status == parsed.status && plain.stderr == parsed.stderr, "\(parsed.stderr)")
        }
    }

    @Test func quotaPrintsWhatTheParsedCommandPrintsForEveryCommandLine() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("quota-plain")
            defer { scratch.removeUnlessKept() }
            // The day's clock pinned, for the warm's ledger and both answers alike: they count the time to
            // the reset from one instant.
            let pinned = ["FILMCACHE_NOW": "2026-11-28T12:00:00Z"]
            _ = try Self.cache(scratch, environment: pinned)
            let lines: [[String]] = [
                ["quota", "--db", scratch.db],
                ["quota", "--json", "--db", scratch.db],
                ["quota", "--db=\(scratch.db)", "--prometheus"],
                ["quota", "--db", scratch.dir + "/absent.sqlite"],
                ["quota", "--db", scratch.dir],
                ["quota", "--db", "postgresql://nobody@127.0.0.1:1/none"],
                // What the parsed command reports on, handed to it.
                ["quota", "--db", scratch.db, "--json", "--prometheus"],
                ["quota", "--db", scratch.db, "--db", scratch.db],
                ["quota", "--db", scratch.db, "extra"],
                ["quota", "--db="],
                ["quota", "--db=", scratch.db, "--json"],
                ["quota", "--help"],
            ]
            Self.expectTheParsersAnswers(lines, environment: pinned)
            Self.expectTheParsersAnswers(lines, environment: pinned.merging(["OMDB_API_KEY": "demo"]) { $1 })
            let quota = try BuiltBinaries.run(
                "filmcache", ["quota", "--db", scratch.db, "--json"], environment: pinned)
            #expect(quota.status == 0 && quota.stdout.contains("\"used\" : 3"), "\(quota.stdout)")
        }
    }

    @Test func planPrintsWhatTheParsedCommandPrintsForEveryCommandLine() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("plan-plain")
            defer { scratch.removeUnlessKept() }
            let pinned = ["FILMCACHE_NOW": "2026-11-28T12:00:00Z"]
            let ids = try Self.cache(scratch, environment: pinned)
            let some = try scratch.worklist("some.txt", [ids[0], "tt7777777", "tt8888888", "tt0000042"])
            let more = try scratch.worklist("more.txt", Array(ServeEndToEndTests.corpusIDs.prefix(8)))
            let list = try scratch.write("list.csv", Array("Const,Title\n\(ids[1]),A film\n".utf8))
            let lines: [[String]] = [
                ["plan", "--db", scratch.db, some],
                ["plan", "--json", "--db", scratch.db, some, more],
                ["plan", "--db=\(scratch.db)", "--json", "--ids", more],
                ["plan", "--db", scratch.db, "--ids", list],
                ["plan", "--db", scratch.dir + "/absent.sqlite", more],
                ["plan", "--db", scratch.db, scratch.dir + "/no-such-list.txt"],
                ["plan", "--db", "postgresql://nobody@127.0.0.1:1/none", some],
                // What the parsed command reports on, handed to it.
                ["plan", "--db", scratch.db],
                ["plan", "--db", scratch.db, "--refresh", some],
                ["plan", "--db", scratch.db, "-", some],
                ["plan", "--db=", scratch.db, some],
                ["plan", "--db=", some],
                ["plan", "--help"],
            ]
            Self.expectTheParsersAnswers(lines, environment: pinned)
            Self.expectTheParsersAnswers(lines, environment: pinned.merging(["OMDB_API_KEY": "demo"]) { $1 })
            let plan = try BuiltBinaries.run(
                "filmcache", ["plan", "--db", scratch.db, "--json", more], environment: pinned)
            #expect(plan.status == 0 && plan.stdout.contains("\"fresh\" : 3"), "\(plan.stdout)")
        }
    }

    /// Expects each of `lines` to print and end as it does with the default log level named, which
    /// sends it to the parser.
    private static func expectTheParsersAnswers(
        _ lines: [[String]], environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for line in lines {
            guard let plain = try? BuiltBinaries.run("filmcache", line, environment: environment),
                let parsed = try? BuiltBinaries.run(
                    "filmcache", line + ["--log-level", "notice"], environment: environment)
            else {
                Issue.record("\(line) could not be run", sourceLocation: sourceLocation)
                continue
            }
            #expect(
                plain.status == parsed.status, "\(line): status \(plain.status), parsed \(parsed.status)",
                sourceLocation: sourceLocation)
            #expect(plain.stdout == parsed.stdout, "\(line): standard output differs", sourceLocation: sourceLocation)
            #expect(
                plain.stderr == parsed.stderr, "\(line): \(plain.stderr) / parsed: \(parsed.stderr)",
                sourceLocation: sourceLocation)
        }
    }
}
