import Foundation
import Testing

/// The edges of the newer surfaces attacked with the built binaries: an upstream that echoes the
/// key, database URLs in every spelling, misspelled titles, instants in the future, broken CSV,
/// closed standard output and empty restores.
@Suite(.serialized) enum EdgesEndToEndTests {
    /// A recognisable key as long as OMDb's, accepted by the stand-ins that need it.
    static let key = "Zq7EchoKey4711"
    /// The shipped corpus's IDs, in order.
    static let ids = ServeEndToEndTests.corpusIDs

    /// Whether `text` holds `secret`, in any letter case.
    static func hits(_ text: String, _ secret: String) -> Bool {
        text.lowercased().contains(secret.lowercased())
    }

    /// Whether raw bytes (a database page, a WAL frame) hold `secret`, in any ASCII letter case.
    static func hits(_ data: Data, _ secret: String) -> Bool {
        hits(String(decoding: data.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self), secret)
    }

    /// The bytes of the SQLite database at `path` and of its WAL and shared-memory files, by name.
    static func databaseFiles(_ path: String) -> [(String, Data)] {
        ["", "-wal", "-shm"].compactMap { suffix in
            (try? Data(contentsOf: URL(fileURLWithPath: path + suffix))).map { (path + suffix, $0) }
        }
    }

    /// Runs the built `filmcache` with `arguments`.
    static func filmcache(_ arguments: [String], environment: [String: String] = [:], cwd: String? = nil) throws
        -> BuiltBinaries.Output
    {
        try BuiltBinaries.run("filmcache", arguments, environment: environment, cwd: cwd)
    }

    /// The number in the row of a report (`  fetched   3  …`) that starts with `label`.
    static func count(_ report: String, _ label: String) -> Int? {
        for line in report.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix(label) {
            let rest = line.trimmingCharacters(in: .whitespaces).dropFirst(label.count)
            return Int(rest.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber })
        }
        return nil
    }

    /// Warms the first `count` corpus IDs into `scratch`'s database from `standIn` (a fresh one
    /// unless given) and returns the worklist.
    @discardableResult
    static func warm(_ scratch: ReliabilityScratch, count: Int, standIn: StandInProcess? = nil) throws -> String {
        let standIn = try standIn ?? StandInProcess()
        let worklist = try scratch.worklist("warm-\(count).txt", ids.prefix(count))
        let out = try filmcache(
            ["warm", "--db", scratch.db, "--rate", "0", "--no-progress", "--base-url", standIn.baseURL, worklist],
            environment: ["OMDB_API_KEY": "test-key-e2e"])
        try #require(out.status == 0, "\(out.stderr)")
        return worklist
    }

    /// `text` percent-encoded for a URL's query.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

extension EdgesEndToEndTests {
    /// An upstream (a proxy, a CDN's error page) that repeats the request URL, the key in it.
    @Suite struct KeyEchoes {
        let scratch: ReliabilityScratch
        /// The key without its first character: what stays literal when an echo escapes the first.
        var tail: String { String(EdgesEndToEndTests.key.dropFirst()) }

        init() throws {
            scratch = try ReliabilityScratch("edges-echo")
        }

        /// A warm of the first three corpus IDs against a stand-in that answers every call with `fault`.
        func warmAgainstEchoes(_ fault: String) throws -> (ids: [String], out: BuiltBinaries.Output) {
            let standIn = try StandInProcess(
                arguments: ["--fault-rate", "1", "--faults", fault], keys: EdgesEndToEndTests.key)
            let ids = Array(EdgesEndToEndTests.ids.prefix(3))
            let worklist = try scratch.worklist("echo.txt", ids)
            let out = try EdgesEndToEndTests.filmcache(
                [
                    "warm", "--db", scratch.db, "--rate", "0", "--no-progress", "--base-url", standIn.baseURL,
                    "--retry-base", "0.01", "--retry-cap", "0.05", "--max-attempts", "2", worklist,
                ],
                environment: ["OMDB_API_KEY": EdgesEndToEndTests.key])
            return (ids, out)
        }

        /// Neither the key nor its tail in any file of the database at `path`, nor in `outputs`.
        func expectNoKey(database path: String, outputs: [(String, String)]) {
            let files = EdgesEndToEndTests.databaseFiles(path)
            #expect(!files.isEmpty)
            for (name, data) in files {
                #expect(!EdgesEndToEndTests.hits(data, EdgesEndToEndTests.key), "\(name) holds the key")
                #expect(!EdgesEndToEndTests.hits(data, tail), "\(name) holds the key escaped")
            }
            for (name, text) in outputs {
                #expect(!EdgesEndToEndTests.hits(text, tail), "\(name) shows the key")
            }
        }

        @Test func aKeyEchoedInAnErrorTextIsNeverStoredPrintedOrCopied() async throws {
            try await offThePool {
                let (ids, warm) = try warmAgainstEchoes("echo-not-found")
                #expect(warm.status == 75, "\(warm.stderr)")
                #expect(EdgesEndToEndTests.count(warm.stdout, "failed") == 3, "\(warm.stdout)")
                // OMDb's words are kept, the key masked.
                for id in ids {
                    let message = try scratch.sqlite("SELECT message FROM lookups WHERE imdb_id = '\(id)'")
                    #expect(message.contains("Movie not found! (GET /?apikey=***&i=\(id))"), "\(message)")
                }
                var outputs = [("warm", warm.stdout + warm.stderr)]
                let show = try EdgesEndToEndTests.filmcache(["show", ids[0], "--db", scratch.db])
                #expect(show.stderr.contains("apikey=***"), "\(show.stderr)")
                let json = try EdgesEndToEndTests.filmcache(["show", ids[0], "--db", scratch.db, "--json"])
                outputs += [("show", show.stdout + show.stderr), ("show --json", json.stdout + json.stderr)]
                let copy = scratch.dir + "/copy.sqlite"
                let copied = try EdgesEndToEndTests.filmcache(["db", "copy", scratch.db, copy])
                #expect(copied.status == 0, "\(copied.stderr)")
                #expect(try scratch.sqlite("SELECT count(*) FROM lookups", database: copy) == "3")
                outputs.append(("db copy", copied.stdout + copied.stderr))
                expectNoKey(database: scratch.db, outputs: outputs)
                expectNoKey(database: copy, outputs: [])
            }
        }

        @Test func aFilmBodyThatEchoesTheKeyIsNeverStoredAndTheRunSaysItWasNotOMDbs() async throws {
            try await offThePool {
                let (ids, warm) = try warmAgainstEchoes("echo-film")
                #expect(warm.status == 75, "\(warm.stderr)")
                #expect(EdgesEndToEndTests.count(warm.stdout, "fetched") == 0, "\(warm.stdout)")
                #expect(EdgesEndToEndTests.count(warm.stdout, "failed") == 3, "\(warm.stdout)")
                #expect(warm.stderr.contains("not an OMDb answer"), "\(warm.stderr)")
                #expect(try scratch.sqlite("SELECT count(*) FROM films") == "0")
                let messages = try scratch.column("SELECT status || ': ' || message FROM lookups ORDER BY imdb_id")
                #expect(messages.count == 3)
                #expect(messages.allSatisfy { $0.hasPrefix("failed: not an OMDb answer") && $0.contains("API key") })
                let show = try EdgesEndToEndTests.filmcache(["show", ids[1], "--db", scratch.db, "--json"])
                #expect(show.status != 0)
                let copy = scratch.dir + "/copy.sqlite"
                let copied = try EdgesEndToEndTests.filmcache(["db", "copy", scratch.db, copy])
                #expect(copied.status == 0, "\(copied.stderr)")
                #expect(try scratch.sqlite("SELECT count(*) FROM films", database: copy) == "0")
                expectNoKey(
                    database: scratch.db,
                    outputs: [("warm", warm.stdout + warm.stderr), ("show --json", show.stdout + show.stderr)])
                expectNoKey(database: copy, outputs: [])
            }
        }

        @Test(
            "serve never hands a client, stores or logs an answer that echoes its key",
            arguments: ["echo-film", "echo-not-found"])
        func serveNeverHandsOnAnEcho(_ fault: String) async throws {
            try await offThePool {
                let standIn = try StandInProcess(arguments: ["--fault-rate", "1", "--faults", fault])
                let serve = try ServeProcess(
                    database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir),
                    arguments: ["--max-attempts", "1", "--breaker-pause-after", "1000"])
                let id = EdgesEndToEndTests.ids[5]
                for query in ["i=\(id)", "i=\(id)&plot=full", "i=\(EdgesEndToEndTests.ids[6])"] {
                    let answer = try serve.omdb(query)
                    #expect(answer.status != 0, "\(query): serve answered")
                    #expect(!EdgesEndToEndTests.hits(answer.text, "apikey"), "\(query): \(answer.text.prefix(300))")
                    #expect(!answer.text.contains("\"Response\":\"True\""), "\(query): \(answer.text.prefix(300))")
                }
                #expect(try standIn.requestCount() >= 3)
                #expect(try scratch.sqlite("SELECT count(*) FROM films") == "0")
                #expect(try scratch.sqlite("SELECT count(*) FROM answers WHERE body LIKE '%apikey%'") == "0")
                serve.binary.send(SIGTERM)
                let log = serve.binary.wait(timeout: 30).stderr
                #expect(!EdgesEndToEndTests.hits(log, "apikey=demo"), "\(log)")
                for (name, data) in EdgesEndToEndTests.databaseFiles(scratch.db) {
                    #expect(!EdgesEndToEndTests.hits(data, "apikey=demo"), "\(name)")
                    #expect(!EdgesEndToEndTests.hits(data, "apikey=\\u0064emo"), "\(name)")
                }
            }
        }
    }
}

extension EdgesEndToEndTests {
    /// `--db` and a job's `db` naming a database by URL, whatever the spelling of its scheme.
    @Suite struct DatabaseURLs {
        let scratch: ReliabilityScratch

        init() throws {
            scratch = try ReliabilityScratch("edges-url")
        }

        static let urls = [
            "POSTGRESQL://fc:secret@127.0.0.1:5432/filmcache", "Postgres://fc:secret@127.0.0.1/filmcache",
            "PostgreSQL://fc:secret@127.0.0.1/filmcache?sslmode=disable", "postgresql:/fc:secret@127.0.0.1/filmcache",
            "postgresql:fc:secret@127.0.0.1/filmcache", "mysql://fc:secret@h/x", "file:///x.sqlite",
            "sqlite://fc:secret@h/x.sqlite", "  POSTGRESQL://fc:secret@127.0.0.1/filmcache",
            "\tpostgres://fc:secret@127.0.0.1/filmcache", "postgresql://fc@127.0.0.1/filmcache?password=secret",
        ]

        @Test func aPostgreSQLURLInAnySpellingIsRecognisedItsPasswordRefusedAndNeverShown() async throws {
            try await offThePool {
                let worklist = try scratch.worklist("w.txt", EdgesEndToEndTests.ids.prefix(2))
                try EdgesEndToEndTests.warm(scratch, count: 2)
                let existing = scratch.db
                let before = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.dir))
                for url in Self.urls {
                    let commands = [
                        ["warm", "--db", url, "--base-url", "http://127.0.0.1:9/", "--no-progress", worklist],
                        ["quota", "--db", url], ["stats", "--db", url],
                        ["show", EdgesEndToEndTests.ids[0], "--db", url],
                        ["plan", "--db", url, worklist], ["db", "copy", url, scratch.dir + "/to.sqlite"],
                        ["db", "copy", existing, url], ["export", "--db", url],
                    ]
                    for command in commands {
                        let out = try EdgesEndToEndTests.filmcache(
                            command, environment: ["OMDB_API_KEY": "test-key-e2e"], cwd: scratch.dir)
                        let name = "\(command.joined(separator: " "))"
                        #expect(out.status == 64, "\(name): \(out.stderr)")
                        #expect(
                            out.stderr.contains("postgresql://USER@HOST") || out.stderr.contains("holds a password")
                                || out.stderr.contains("is not a file path"),
                            "\(name) says why: \(out.stderr)")
                        #expect(!(out.stdout + out.stderr).contains("secret"), "\(name) shows the password")
                    }
                }
                let after = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.dir))
                #expect(after == before, "no file named like a URL: \(after.subtracting(before))")
            }
        }

        @Test func aJobFilesPostgreSQLURLInCapitalsIsRefusedWithoutItsPassword() async throws {
            try await offThePool {
                let worklist = try scratch.worklist("w.txt", EdgesEndToEndTests.ids.prefix(2))
                _ = try scratch.write("job.toml", [])
                let before = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.dir))
                for url in ["PostgreSQL://fc:secret@127.0.0.1:5432/filmcache", "POSTGRES://fc:secret@db/films"] {
                    let job = try scratch.write(
                        "job.toml", Array("db = \"\(url)\"\nworklists = [\"\(worklist)\"]\nrate = 0\n".utf8))
                    for command in ["warm", "plan", "quota", "stats"] {
                        let out = try EdgesEndToEndTests.filmcache(
                            [command, "--job", job], environment: ["OMDB_API_KEY": "test-key-e2e"], cwd: scratch.dir)
                        #expect(out.status == 78, "\(command) \(url): \(out.stderr)")
                        #expect(
                            out.stderr.contains("db in \(job)") && out.stderr.contains("password"), "\(out.stderr)")
                        #expect(!(out.stdout + out.stderr).contains("secret"), "\(command) \(url)")
                    }
                }
                let after = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.dir))
                #expect(after == before, "no file named like a URL: \(after.subtracting(before))")
            }
        }
    }
}

extension EdgesEndToEndTests {
    /// `serve` and the title index with a misspelled title: its miss is its own.
    @Suite struct Misspellings {
        let scratch: ReliabilityScratch

        init() throws {
            scratch = try ReliabilityScratch("edges-typo")
        }

        /// A corpus title with a space in it, as the stand-in's `i=` answers it, the ID its `t=`
        /// answers, and the title with that space doubled: a spelling serve and the title index
        /// fold to the same key and the stand-in (as OMDb) does not find.
        static func title(from standIn: StandInProcess) throws -> (title: String, id: String, misspelled: String) {
            for id in EdgesEndToEndTests.ids {
                let body = try HTTPAnswer.get(standIn.baseURL + "?apikey=demo&i=\(id)").body
                let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
                guard let title = object?["Title"] as? String, let space = title.firstIndex(of: " ") else { continue }
                let misspelled = String(title[..<space]) + "  " + String(title[title.index(after: space)...])
                let found = try HTTPAnswer.get(standIn.baseURL + "?apikey=demo&t=" + EdgesEndToEndTests.encoded(title))
                let miss = try HTTPAnswer.get(
                    standIn.baseURL + "?apikey=demo&t=" + EdgesEndToEndTests.encoded(misspelled))
                let foundID = (try JSONSerialization.jsonObject(with: found.body) as? [String: Any])?["imdbID"]
                guard let foundID = foundID as? String, miss.text.contains("Movie not found!") else { continue }
                return (title, foundID, misspelled)
            }
            throw NoTitle()
        }

        /// No corpus title could be misspelled so.
        struct NoTitle: Error {}

        @Test func aMisspellingsMissNeverDeniesTheRightTitle() async throws {
            try await offThePool {
                let standIn = try StandInProcess()
                let (title, id, misspelled) = try Self.title(from: standIn)
                let serve = try ServeProcess(
                    database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
                let calls = try standIn.requestCount()
                let miss = try serve.omdb("t=" + EdgesEndToEndTests.encoded(misspelled))
                #expect(miss.status == 200)
                #expect(miss.text == #"{"Response":"False","Error":"Movie not found!"}"#)
                // The same misspelling again: its own miss, from the cache.
                let again = try serve.omdb("t=" + EdgesEndToEndTests.encoded(misspelled))
                #expect(again.text == miss.text && again.header("X-Cache") == "hit")
                #expect(try standIn.requestCount() == calls + 1)
                let right = try serve.omdb("t=" + EdgesEndToEndTests.encoded(title))
                #expect(right.status == 200)
                #expect(right.text.contains("\"imdbID\":\"\(id)\""), "\(right.text.prefix(200))")
                #expect(right.header("X-Cache") == "miss")
                #expect(try standIn.requestCount() == calls + 2)
                // A found film answers every spelling that folds to its key, without a call.
                let shouted = try serve.omdb("t=" + EdgesEndToEndTests.encoded(title.uppercased()))
                #expect(shouted.text.contains("\"imdbID\":\"\(id)\"") && shouted.header("X-Cache") == "hit")
                #expect(try standIn.requestCount() == calls + 2)
            }
        }

        @Test func aMisspellingsMissInTheTitleIndexDoesNotDenyTheRightTitleToAWarm() async throws {
            try await offThePool {
                let standIn = try StandInProcess()
                let (title, id, misspelled) = try Self.title(from: standIn)
                let serve = try ServeProcess(
                    database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
                #expect(try serve.omdb("t=" + EdgesEndToEndTests.encoded(misspelled)).text.contains("Movie not found!"))
                serve.binary.send(SIGTERM)
                #expect(serve.binary.wait(timeout: 30).status == 0)
                #expect(try scratch.sqlite("SELECT asked_title, imdb_id IS NULL FROM titles") == "\(misspelled)|1")

                func warm(_ name: String) throws -> Int {
                    let list = try scratch.write(
                        "\(name).csv", Array("Title,Year\n\(TitleListEndToEndTests.csv(name)),\n".utf8))
                    let before = try standIn.requestCount()
                    let out = try EdgesEndToEndTests.filmcache(
                        [
                            "warm", "--db", scratch.db, "--rate", "0", "--no-progress", "--base-url", standIn.baseURL,
                            list,
                        ],
                        environment: ["OMDB_API_KEY": ServeProcess.omdbKey])
                    #expect(out.status == 0, "\(out.stderr)")
                    return try standIn.requestCount() - before
                }
                // The misspelling's miss still stands for the misspelling.
                #expect(try warm(misspelled) == 0)
                // The right title is asked for, once, and found.
                #expect(try warm(title) == 1)
                #expect(try scratch.sqlite("SELECT imdb_id FROM titles") == id)
                #expect(try scratch.sqlite("SELECT count(*) FROM films WHERE imdb_id = '\(id)'") == "1")
                #expect(try warm(title) == 0)
            }
        }

        @Test func aMisspellingsMissAskedThroughServeKeepsTheTitleIndexsFoundFilm() async throws {
            try await offThePool {
                let standIn = try StandInProcess()
                let (title, id, misspelled) = try Self.title(from: standIn)
                let list = try scratch.write(
                    "right.csv", Array("Title,Year\n\(TitleListEndToEndTests.csv(title)),\n".utf8))
                let warm = [
                    "warm", "--db", scratch.db, "--rate", "0", "--no-progress", "--base-url", standIn.baseURL, list,
                ]
                let first = try EdgesEndToEndTests.filmcache(warm, environment: ["OMDB_API_KEY": ServeProcess.omdbKey])
                #expect(first.status == 0, "\(first.stderr)")
                #expect(try scratch.sqlite("SELECT imdb_id FROM titles") == id)
                let serve = try ServeProcess(
                    database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
                #expect(try serve.omdb("t=" + EdgesEndToEndTests.encoded(misspelled)).text.contains("Movie not found!"))
                serve.binary.send(SIGTERM)
                #expect(serve.binary.wait(timeout: 30).status == 0)
                let row = try scratch.sqlite("SELECT coalesce(imdb_id, 'none') FROM titles")
                #expect(row == id, "a found film stays found whatever spelling later got a miss")
            }
        }
    }
}
