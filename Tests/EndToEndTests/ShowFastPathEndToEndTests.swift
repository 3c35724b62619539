import Foundation
import Testing

/// A plain `show` on a SQLite file is answered before the argument parser is made (`ShowRequest`);
/// what a user sees must not depend on which of the two answered.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ShowFastPathEndToEndTests {
    /// A cache with three films, an alias of the first, and an ID OMDb does not know.
    private static func cache(_ scratch: ReliabilityScratch) throws -> [String] {
        let ids = Array(ServeEndToEndTests.corpusIDs.prefix(3))
        let standIn = try StandInProcess()
        let list = try scratch.worklist("ids.txt", ids)
        let warm = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--no-progress", list],
            environment: ["OMDB_API_KEY": "demo"])
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
                ["show", "--json", "--json", "--db", scratch.db, ids[0]],
                ["show", "--help"],
                ["show"],
            ]
            // The same command line with the default log level named goes to the parser.
            for line in lines {
                let fast = try BuiltBinaries.run("filmcache", line)
                let parsed = try BuiltBinaries.run("filmcache", line + ["--log-level", "notice"])
                #expect(fast.status == parsed.status, "\(line): status \(fast.status), parsed \(parsed.status)")
                #expect(fast.stdout == parsed.stdout, "\(line): standard output differs")
                #expect(fast.stderr == parsed.stderr, "\(line): \(fast.stderr) / parsed: \(parsed.stderr)")
            }
            let shown = try BuiltBinaries.run("filmcache", ["show", "--db", scratch.db, ids[0]])
            #expect(shown.status == 0 && shown.stdout.contains(ids[0]), "\(shown.stdout)")
            let alias = try BuiltBinaries.run("filmcache", ["show", "--db", scratch.db, "tt7777777"])
            #expect(alias.stderr.contains("is an alias of \(ids[0])"), "\(alias.stderr)")
            let unknown = try BuiltBinaries.run("filmcache", ["show", "--db", scratch.db, "tt8888888"])
            #expect(unknown.status == 1 && unknown.stderr.contains("OMDb does not know it"), "\(unknown.stderr)")
        }
    }
}
