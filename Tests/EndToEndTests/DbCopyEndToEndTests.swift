import Foundation
import PostgresScratch
import Testing

/// `filmcache db copy` with the real binary: a warmed SQLite cache moved to PostgreSQL and back
/// answers every read command as before, a copy made twice is the same as once, and what must be
/// refused is refused before anything is created.
@Suite(.serialized, .timeLimit(.minutes(5))) struct DbCopyEndToEndTests {
    let server: ScratchPostgres
    let scratch: ReliabilityScratch
    /// One pinned instant: every time in every answer is then the same, whichever cache answers.
    let now = "2026-11-21T12:00:00Z"

    init() async throws {
        // initdb and the server's start block: off the cooperative pool (see offThePool).
        (server, scratch) = try await offThePool { (try ScratchPostgres.shared(), try ReliabilityScratch("copy")) }
    }

    /// A new database's URL.
    func database() throws -> String { server.url(database: try server.createDatabase()) }

    /// The password reaches the binary only through `PGPASSWORD`.
    var environment: [String: String] {
        ["OMDB_API_KEY": "demo", "PGPASSWORD": server.password, "FILMCACHE_NOW": now]
    }

    /// Runs `filmcache` with the environment, checking the password never shows.
    func filmcache(_ arguments: [String]) throws -> BuiltBinaries.Output {
        let out = try BuiltBinaries.run("filmcache", arguments, environment: environment)
        #expect(!out.stdout.contains(server.password) && !out.stderr.contains(server.password), "\(arguments)")
        return out
    }

    /// What the read commands answer on `db`, the database's name taken out.
    func answers(_ db: String, worklist: String, ids: [String]) throws -> [String] {
        var outputs: [String] = []
        let commands =
            [["plan", "--json", "--ids", worklist], ["quota", "--json"]] + ids.map { ["show", "--json", $0] }
        for arguments in commands {
            let out = try filmcache([arguments[0], "--db", db] + arguments.dropFirst())
            outputs.append(
                "\(arguments) exit \(out.status)\n" + (out.stdout + out.stderr).replacingOccurrences(of: db, with: "DB")
            )
        }
        let stats = try filmcache(["stats", "--db", db, "--json", worklist])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        // The file sizes are the backend's own; everything else is the cache's.
        for key in object.keys.sorted() where !key.hasSuffix("Bytes") && key != "databaseExists" {
            let value = try JSONSerialization.data(
                withJSONObject: object[key] ?? NSNull(), options: [.sortedKeys, .fragmentsAllowed])
            outputs.append("stats \(key)=" + String(decoding: value, as: UTF8.self))
        }
        return outputs
    }

    /// The copy's counts by table, from its `--json`.
    func counts(_ out: BuiltBinaries.Output) throws -> [String: [String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        #expect(object["verified"] as? Bool == true, "\(out.stdout)")
        let tables = try #require(object["tables"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: tables.map { ($0["table"] as? String ?? "?", $0) })
    }

    @Test func aWarmedCacheMovesToPostgreSQLAndBackAndEveryReadCommandAnswersAlike() async throws {
        try await offThePool {
            let ids = GeneratedIDs.first(300) + ["tt0000001", "tt9999999"]
            let worklist = try scratch.worklist("w.txt", ids)
            let standIn = try StandInProcess(arguments: ["--generate", "300"], corpus: nil)
            let warm = try filmcache(
                ["warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--rate", "0", "--no-progress", worklist])
            #expect(warm.status == 0, "\(warm.stderr)")
            let shown = [ids[7], ids[299], "tt9999999"]
            // What serve keeps: an answer whose bytes are no UTF-8, a negative one, and demand the plan weighs.
            _ = try scratch.sqlite(
                """
                INSERT INTO answers (query, body, found, answered_at) VALUES
                    ('s=heat', x'7b22ff00fe227d', 1, '2026-11-21T11:00:00Z'),
                    ('t=no such film', CAST('{"Response":"False","Error":"Movie not found!"}' AS BLOB), 0,
                     '2026-11-21T11:30:00Z');
                INSERT INTO demand (imdb_id, requests, last_requested_at) VALUES
                    ('\(ids[299])', 40, '2026-11-21T11:45:00Z'), ('\(ids[7])', 2, '2026-11-21T10:00:00Z');
                """)
            let kept =
                "SELECT query || ' ' || hex(body) || ' ' || found || ' ' || answered_at FROM answers ORDER BY query"
            let asked = "SELECT imdb_id || ' ' || requests || ' ' || last_requested_at FROM demand ORDER BY imdb_id"
            let (answersKept, demandKept) = (try scratch.sqlite(kept), try scratch.sqlite(asked))
            let original = try answers(scratch.db, worklist: worklist, ids: shown)

            let url = try database()
            let copy = try filmcache(["db", "copy", scratch.db, url, "--json"])
            #expect(copy.status == 0, "\(copy.stderr)")
            let first = try counts(copy)
            #expect(first["films"]?["added"] as? Int == 300 && first["films"]?["toCount"] as? Int == 300)
            #expect(first["lookups"]?["toCount"] as? Int == 2)
            #expect(first["runs"]?["added"] as? Int == 1 && (first["quota_calls"]?["added"] as? Int ?? 0) > 0)
            #expect(first["answers"]?["added"] as? Int == 2 && first["demand"]?["added"] as? Int == 2, "\(first)")
            #expect(
                try server.sql(
                    "SELECT string_agg(query || ' ' || upper(encode(body, 'hex')), ',' ORDER BY query) FROM answers",
                    database: String(url.split(separator: "/").last ?? "")
                ).trimmingCharacters(in: .whitespacesAndNewlines)
                    == "s=heat 7B22FF00FE227D,t=no such film "
                    + Data(#"{"Response":"False","Error":"Movie not found!"}"#.utf8).map { String(format: "%02X", $0) }
                    .joined(), "bodies byte for byte")
            let onPostgres = try answers(url, worklist: worklist, ids: shown)
            for (a, b) in zip(original, onPostgres) { #expect(a == b, "SQLite:\n\(a)\nPostgreSQL:\n\(b)") }

            // Again: nothing added, nothing doubled.
            let again = try filmcache(["db", "copy", scratch.db, url, "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            for (table, row) in try counts(again) {
                #expect(row["added"] as? Int == 0 && row["updated"] as? Int == 0, "\(table): \(row)")
                #expect(row["toCount"] as? Int == first[table]?["toCount"] as? Int, "\(table)")
            }
            let afterAgain = try answers(url, worklist: worklist, ids: shown)
            #expect(afterAgain.count == onPostgres.count)
            for (a, b) in zip(onPostgres, afterAgain) { #expect(a == b, "first copy:\n\(a)\nafter the second:\n\(b)") }

            // And back, into a new file.
            let back = scratch.dir + "/back.sqlite"
            let home = try filmcache(["db", "copy", url, back])
            #expect(home.status == 0, "\(home.stderr)")
            #expect(home.stdout.contains("counts verified"), "\(home.stdout)")
            let onBack = try answers(back, worklist: worklist, ids: shown)
            #expect(try scratch.sqlite(kept, database: back) == answersKept)
            #expect(try scratch.sqlite(asked, database: back) == demandKept)
            for (a, b) in zip(original, onBack) { #expect(a == b, "SQLite:\n\(a)\nback:\n\(b)") }
            #expect(
                try scratch.sqlite(
                    "SELECT group_concat(raw_json, '') FROM (SELECT raw_json FROM films ORDER BY imdb_id)")
                    == scratch.sqlite(
                        "SELECT group_concat(raw_json, '') FROM (SELECT raw_json FROM films ORDER BY imdb_id)",
                        database: back), "OMDb's bodies verbatim")

            // A warm on the PostgreSQL copy finds everything fresh: no call.
            let idle = try StandInProcess(arguments: ["--generate", "300"], corpus: nil)
            let rewarm = try filmcache(
                ["warm", "--db", url, "--base-url", idle.baseURL, "--rate", "0", "--no-progress", worklist])
            #expect(rewarm.status == 0, "\(rewarm.stderr)")
            #expect(try idle.requestCount() == 0)
        }
    }

    @Test func theSameDatabaseTwiceAMissingSourceAndAPasswordInAURLAreRefusedAndCreateNothing() async throws {
        try await offThePool {
            let standIn = try StandInProcess(arguments: ["--generate", "5"], corpus: nil)
            let worklist = try scratch.worklist("w.txt", GeneratedIDs.first(5))
            let warm = try filmcache(
                ["warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--rate", "0", "--no-progress", worklist])
            #expect(warm.status == 0, "\(warm.stderr)")
            let link = scratch.dir + "/link.sqlite"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: scratch.db)
            for (from, to) in [(scratch.db, link), (link, scratch.db)] {
                let same = try filmcache(["db", "copy", from, to])
                #expect(same.status == 64 && same.stderr.contains("same database"), "\(same.stderr)")
            }
            let relative = try BuiltBinaries.run(
                "filmcache", ["db", "copy", "./cache.sqlite", "cache.sqlite"], environment: environment,
                cwd: scratch.dir)
            #expect(relative.status == 64, "\(relative.stderr)")
            // One PostgreSQL database by one URL, or by another host name (told by its identity).
            let pg = try database()
            #expect(try filmcache(["db", "copy", scratch.db, pg]).status == 0)
            for other in [pg, pg.replacingOccurrences(of: "127.0.0.1", with: "localhost")] {
                let same = try filmcache(["db", "copy", pg, other])
                #expect(same.status == 64 && same.stderr.contains("same database"), "\(same.stderr)")
            }

            let missing = scratch.dir + "/missing.sqlite"
            let target = scratch.dir + "/new.sqlite"
            let nothing = try filmcache(["db", "copy", missing, target])
            #expect(nothing.status == 66 && nothing.stderr.contains("no cache database"), "\(nothing.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: scratch.dir)
            #expect(!left.contains { $0.hasPrefix("missing") || $0.hasPrefix("new") }, "\(left)")
            // A PostgreSQL FROM without the schema is not created either.
            let empty = try database()
            let noSchema = try filmcache(["db", "copy", empty, target])
            #expect(noSchema.status != 0 && noSchema.stderr.contains("no filmcache schema"), "\(noSchema.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target))
            let tables = try server.sql(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
                database: String(empty.split(separator: "/").last ?? ""))
            #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "0")

            let url = try database()
            let secret = url.replacingOccurrences(of: "filmcache@", with: "filmcache:\(server.password)@")
            for arguments in [[scratch.db, secret], [secret, target]] {
                let refused = try filmcache(["db", "copy"] + arguments)
                #expect(refused.status == 64 && refused.stderr.contains("holds a password"), "\(refused.stderr)")
            }
            #expect(
                try server.sql(
                    "SELECT to_regclass('films') IS NULL", database: String(url.split(separator: "/").last ?? "")
                ).contains("t"))
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    @Test func helpFitsEightyColumns() throws {
        for command in [["db"], ["db", "copy"]] {
            let out = try BuiltBinaries.run("filmcache", command + ["--help"], environment: ["COLUMNS": "80"])
            #expect(out.status == 0)
            #expect(out.stdout.split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(out.stdout)")
        }
    }
}
