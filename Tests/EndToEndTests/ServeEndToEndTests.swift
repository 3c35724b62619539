import Foundation
import Testing

/// `filmcache serve` as an app meets it: the built binary on loopback in front of the OMDb
/// stand-in, asked by curl.
@Suite(.serialized) struct ServeEndToEndTests {
    /// The generated corpus's IDs the stand-in serves.
    static let corpusIDs: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: BuiltBinaries.packageRoot + "/Data/corpus"))
        return (names ?? []).filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    static func corpusBody(_ id: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: BuiltBinaries.packageRoot + "/Data/corpus/\(id).json"))
    }

    @Test func aFilmIsFetchedOnceThenServedFromTheCacheByteForByte() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.dir + "/cache.sqlite", standIn: standIn,
                tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
            let id = Self.corpusIDs[3]
            let first = try serve.omdb("i=\(id)")
            #expect(first.status == 200)
            #expect(first.body == (try Self.corpusBody(id)))
            #expect(first.header("X-Cache") == "miss")
            #expect(first.header("Content-Type") == "application/json; charset=utf-8")
            let second = try serve.omdb("i=\(id)")
            #expect(second.body == first.body)
            #expect(second.header("X-Cache") == "hit")
            #expect(try standIn.requestCount() == 1)
            // The film is in the cache as a warm would have stored it.
            #expect(try scratch.sqlite("SELECT count(*) FROM films WHERE imdb_id = '\(id)'") == "1")
        }
    }

    @Test func tokensAreCheckedAndTheOMDbKeyIsNeverAToken() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.dir + "/cache.sqlite", standIn: standIn,
                tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
            let id = Self.corpusIDs[0]
            let none = try serve.get("/?i=\(id)")
            #expect(none.status == 401)
            #expect(none.text == #"{"Response":"False","Error":"No API key provided."}"#)
            let empty = try serve.get("/?apikey=&i=\(id)")
            #expect(empty.text == #"{"Response":"False","Error":"No API key provided."}"#)
            let wrong = try serve.get("/?apikey=not-a-token-at-all&i=\(id)")
            #expect(wrong.status == 401)
            #expect(wrong.text == #"{"Response":"False","Error":"Invalid API key!"}"#)
            // The OMDb key itself opens nothing: apps never hold it.
            let key = try serve.get("/?apikey=\(ServeProcess.omdbKey)&i=\(id)")
            #expect(key.status == 401)
            #expect(key.text == #"{"Response":"False","Error":"Invalid API key!"}"#)
            let second = try serve.get("/?apikey=\(ServeProcess.tokens[1])&i=\(id)")
            #expect(second.status == 200)
            #expect(try standIn.requestCount() == 1)
        }
    }

    @Test func aStormOf500RequestsOver50MissingIDsMakesExactly50Calls() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve")
            defer { scratch.removeUnlessKept() }
            // Each call takes a while, so the ten requests for an ID all arrive while it is in flight.
            let standIn = try StandInProcess(arguments: ["--latency-ms", "300"])
            let serve = try ServeProcess(
                database: scratch.dir + "/cache.sqlite", standIn: standIn,
                tokensFile: try ServeProcess.tokensFile(in: scratch.dir),
                // The requests wait on their film's one call for up to --request-timeout: longer than the
                // default 10 s on a loaded machine.
                arguments: ["--max-in-flight", "64", "--request-timeout", "120"])
            let ids = Array(Self.corpusIDs.prefix(50))
            var urls: [String] = []
            for round in 0..<10 {
                for id in ids {
                    urls.append("\(serve.base)/?apikey=\(ServeProcess.tokens[round % 2])&i=\(id)&n=\(round)")
                }
            }
            let directory = scratch.dir + "/storm"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let statuses = try HTTPAnswer.storm(urls, parallel: 500, directory: directory)
            #expect(
                statuses.filter { $0 == 200 }.count == 500,
                "statuses: \(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))")
            for (index, url) in urls.enumerated() {
                let id = ids[index % 50]
                let body = try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(index)"))
                #expect(body == (try Self.corpusBody(id)), "\(url)")
            }
            #expect(try standIn.requestCount() == 50, "\(serve.binary.stderrSoFar.suffix(3_000))")
            #expect(try scratch.sqlite("SELECT count(*) FROM films") == "50")
        }
    }

    @Test func aSpentBudgetMakesNoCallServesStaleFilmsAndTellsMissesWhenToComeBack() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let database = scratch.dir + "/cache.sqlite"
            let tokens = try ServeProcess.tokensFile(in: scratch.dir)
            let ids = Array(Self.corpusIDs.prefix(6))
            // Day one: three films fetched.
            let dayOne = "2026-01-10T12:00:00Z"
            do {
                let serve = try ServeProcess(
                    database: database, standIn: standIn, tokensFile: tokens, environment: ["FILMCACHE_NOW": dayOne])
                for id in ids.prefix(3) { #expect(try serve.omdb("i=\(id)").status == 200) }
            }
            #expect(try standIn.requestCount() == 3)
            // Ninety days on, they are stale; a budget of two calls is spent on two new films.
            let later = "2026-04-10T12:00:00Z"
            let serve = try ServeProcess(
                database: database, standIn: standIn, tokensFile: tokens,
                arguments: [
                    "--daily-limit", "2", "--ttl-days", "30", "--old-ttl-days", "30", "--recent-ttl-days", "30",
                ],
                environment: ["FILMCACHE_NOW": later])
            #expect(try serve.omdb("i=\(ids[3])").header("X-Cache") == "miss")
            #expect(try serve.omdb("i=\(ids[4])").header("X-Cache") == "miss")
            #expect(try standIn.requestCount() == 5)
            // Budget spent: the stale films are served, saying how old they are, with no call.
            for id in ids.prefix(3) {
                let stale = try serve.omdb("i=\(id)")
                #expect(stale.status == 200)
                #expect(stale.body == (try Self.corpusBody(id)))
                #expect(stale.header("X-Cache") == "stale")
                #expect(stale.header("Age") == "\(90 * 86_400)")
                #expect(stale.header("Warning")?.hasPrefix("110") == true)
            }
            // A miss gets OMDb's limit answer and when the quota day resets (midnight UTC: 12 hours).
            let miss = try serve.omdb("i=\(ids[5])")
            #expect(miss.status == 401)
            #expect(miss.text == #"{"Response":"False","Error":"Request limit reached!"}"#)
            #expect(miss.header("Retry-After") == "\(12 * 3_600)")
            #expect(try standIn.requestCount() == 5)
        }
    }

    @Test func omdbDownServesStaleAndMissesFailFastWithoutAHang() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let database = scratch.dir + "/cache.sqlite"
            let tokens = try ServeProcess.tokensFile(in: scratch.dir)
            let id = Self.corpusIDs[7]
            do {
                let serve = try ServeProcess(
                    database: database, standIn: standIn, tokensFile: tokens,
                    environment: ["FILMCACHE_NOW": "2026-01-10T12:00:00Z"])
                #expect(try serve.omdb("i=\(id)").status == 200)
            }
            // OMDb answers every call with a 503 now.
            try standIn.setBehaviour("fault-rate=1&faults=503")
            let serve = try ServeProcess(
                database: database, standIn: standIn, tokensFile: tokens,
                arguments: [
                    "--max-attempts", "2", "--retry-base", "0.05", "--retry-cap", "0.1", "--ttl-days", "30",
                    "--old-ttl-days", "30", "--recent-ttl-days", "30",
                ],
                environment: ["FILMCACHE_NOW": "2026-04-10T12:00:00Z"])
            let started = Date()
            let stale = try serve.omdb("i=\(id)")
            #expect(stale.status == 200)
            #expect(stale.header("X-Cache") == "stale")
            #expect(stale.body == (try Self.corpusBody(id)))
            let miss = try serve.omdb("i=\(Self.corpusIDs[8])")
            #expect(miss.status == 503)
            #expect(miss.text == #"{"Response":"False","Error":"Error getting data."}"#)
            #expect(miss.header("Retry-After") != nil)
            #expect(Date().timeIntervalSince(started) < 20)
        }
    }
}

/// Every query form, the hostile requests, and shutdown.
@Suite(.serialized) struct ServeQueryFormEndToEndTests {
    /// The corpus's films as objects.
    static var corpus: [[String: Any]] {
        ServeEndToEndTests.corpusIDs.compactMap { id in
            (try? JSONSerialization.jsonObject(with: ServeEndToEndTests.corpusBody(id))) as? [String: Any]
        }
    }

    /// One query of every form OMDb takes, named from the corpus.
    static var queries: [String] {
        let corpus = corpus
        let movie = corpus.first { $0["Type"] as? String == "movie" } ?? [:]
        let ids = Set(corpus.compactMap { $0["imdbID"] as? String })
        let episode =
            corpus.first { $0["Type"] as? String == "episode" && ids.contains($0["seriesID"] as? String ?? "") } ?? [:]
        let series = corpus.first { $0["imdbID"] as? String == episode["seriesID"] as? String } ?? [:]
        let title = (movie["Title"] as? String ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let seriesTitle =
            (series["Title"] as? String ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let word = (movie["Title"] as? String ?? "").split(separator: " ").last.map(String.init) ?? "x"
        let year = (movie["Year"] as? String ?? "").prefix(4)
        let season = episode["Season"] as? String ?? "1"
        let number = episode["Episode"] as? String ?? "1"
        let seriesID = series["imdbID"] as? String ?? ""
        return [
            "i=\(movie["imdbID"] as? String ?? "")",
            "i=\(movie["imdbID"] as? String ?? "")&plot=full",
            "i=tt0000001",
            "t=\(title)",
            "t=\(title)&y=\(year)&type=movie",
            "t=\(title)&plot=full",
            "t=No%20Such%20Film%20Anywhere",
            "s=\(word)",
            "s=\(word)&page=2",
            "s=\(word)&type=series",
            "s=Zzyzx%20Qqq",
            "i=\(seriesID)&Season=\(season)",
            "t=\(seriesTitle)&Season=\(season)",
            "i=\(seriesID)&Season=99",
            "i=\(seriesID)&Season=\(season)&Episode=\(number)",
            "i=\(seriesID)&Season=\(season)&Episode=999",
        ]
    }

    @Test func everyQueryFormIsAnsweredAsOMDbAnswersItThenFromTheCache() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-forms")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
            let queries = Self.queries
            let direct = try queries.map { try HTTPAnswer.get(standIn.baseURL + "?apikey=demo&" + $0) }
            #expect(direct.contains { $0.text.contains(#""Search":["#) })
            #expect(direct.contains { $0.text.contains(#""Episodes":["#) })
            let before = try standIn.requestCount()
            for (query, omdb) in zip(queries, direct) {
                let answer = try serve.omdb(query)
                #expect(answer.status == omdb.status, "\(query)")
                #expect(answer.body == omdb.body, "\(query): \(answer.text.prefix(200)) vs \(omdb.text.prefix(200))")
                #expect(answer.header("X-Cache") == "miss", "\(query)")
            }
            #expect(try standIn.requestCount() == before + queries.count)
            // Asked again, in other spellings OMDb treats alike: all from the cache.
            for (query, omdb) in zip(queries, direct) {
                let respelled = query.replacingOccurrences(of: "plot=full", with: "plot=FULL")
                    .replacingOccurrences(of: "Season=", with: "season=")
                let answer = try serve.omdb(respelled + "&n=2")
                #expect(answer.body == omdb.body, "\(query)")
                #expect(answer.header("X-Cache") == "hit", "\(query)")
            }
            #expect(try standIn.requestCount() == before + queries.count)
            // r=xml is OMDb-style XML: the cache serves JSON only.
            let xml = try serve.omdb("i=tt0000001&r=xml")
            #expect(xml.status == 200)
            #expect(xml.text.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?><root response="False"><error>"#))
            #expect(xml.header("Content-Type")?.hasPrefix("text/xml") == true)
            // A title answer stored its film: asking that film by ID costs nothing.
            let titleAnswer = try JSONSerialization.jsonObject(with: direct[3].body) as? [String: Any]
            let id = try #require(titleAnswer?["imdbID"] as? String)
            #expect(try serve.omdb("i=\(id)").header("X-Cache") == "hit")
            // Under the query with and without its year and type.
            #expect(try scratch.sqlite("SELECT count(*) FROM titles WHERE imdb_id = '\(id)'") == "2")
        }
    }

    @Test func neitherTheKeyNorATokenAppearsInAnyAnswerLogMetricOrTheDatabase() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-secrets")
            defer { scratch.removeUnlessKept() }
            let key = "test-key-e2e"
            let standIn = try StandInProcess(arguments: ["--fault-rate", "0.3", "--faults", "503,html-403,reset"])
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir),
                arguments: ["--log-level", "trace", "--max-attempts", "2", "--retry-base", "0.01"],
                environment: ["OMDB_API_KEY": key])
            var seen = ""
            for (index, query) in (Self.queries + ["i=tt0000002", "s=a"]).enumerated() {
                let answer = try serve.get("/?apikey=\(ServeProcess.tokens[index % 2])&" + query)
                seen += answer.text + answer.headers.description
            }
            for path in ["/?apikey=wrong-token-here&i=tt0000003", "/metrics", "/quota", "/healthz", "/"] {
                let answer = try serve.get(path)
                seen += answer.text + answer.headers.description
            }
            for path in ["/quota", "/"] {
                let answer = try serve.get(path, headers: ["Authorization: Bearer \(ServeProcess.tokens[0])"])
                #expect(answer.status == 200)
                seen += answer.text + answer.headers.description
            }
            serve.binary.send(SIGTERM)
            let output = serve.binary.wait(timeout: 30)
            #expect(output.status == 0)
            seen += output.stdout + output.stderr
            #expect(output.stderr.contains("level=trace") || output.stderr.contains("level=debug"))
            let dump = try ReliabilityProcess.run("/usr/bin/sqlite3", [scratch.db, ".dump"])
            seen += dump.stdout
            for secret in [key] + ServeProcess.tokens + ["wrong-token-here"] {
                #expect(!seen.contains(secret), "\(secret) leaked")
            }
        }
    }

    @Test func sigtermLetsTheRequestsInFlightFinishAndGivesUnsentCallsBack() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-drain")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess(arguments: ["--latency-ms", "1500"])
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
            let ids = Array(ServeEndToEndTests.corpusIDs.suffix(5))
            let clients = try ids.map { id in
                try RunningBinary(
                    "/usr/bin/curl",
                    ["-s", "-w", "\n%{http_code}", "\(serve.base)/?apikey=\(ServeProcess.tokens[0])&i=\(id)"])
            }
            // The signal comes once all five clients are connected and OMDb holds the first call (the
            // others wait for it to answer).
            try waitFor("five clients connected, a call sent", every: 0.02) {
                try standIn.requestCount() >= 1
                    && ReliabilityProcess.run(
                        "/usr/bin/ss", ["-Htn", "state", "established", "( sport = :\(serve.port) )"]
                    )
                    .stdout.split(separator: "\n").count >= 5
            }
            serve.binary.send(SIGTERM)
            for (id, client) in zip(ids, clients) {
                let output = client.wait(timeout: 30)
                let body = try ServeEndToEndTests.corpusBody(id)
                #expect(output.stdout == String(decoding: body, as: UTF8.self) + "\n200", "\(id)")
            }
            let exit = serve.binary.wait(timeout: 30)
            #expect(exit.status == 0, "\(exit.stderr.suffix(2_000))")
            // Nothing new is taken once it has stopped.
            #expect(try HTTPAnswer.get("\(serve.base)/healthz", timeout: 5).status == 0)
            #expect(try scratch.sqlite("SELECT count(*) FROM films") == "5")
            #expect(try scratch.sqlite("SELECT sum(requests) FROM demand") == "5")
            // The ledger holds the five calls sent, no reservation left unsent.
            #expect(try scratch.sqlite("SELECT sum(used) FROM quota_ledger") == "5")
            #expect(try standIn.requestCount() == 5)
        }
    }

    @Test func oversizedRequestLinesAndHeadersAreRefusedAndTheServerGoesOn() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-oversized")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
            let long = try serve.omdb("t=" + String(repeating: "a", count: 20_000))
            #expect([400, 414].contains(long.status))
            let huge = try serve.omdb("t=" + String(repeating: "a", count: 120_000))
            #expect([0, 400, 414, 431].contains(huge.status))
            let header = try serve.get(
                "/?apikey=\(ServeProcess.tokens[0])&i=\(ServeEndToEndTests.corpusIDs[0])",
                headers: ["X-Filler: " + String(repeating: "b", count: 40_000)])
            #expect([0, 400, 431].contains(header.status))
            let many = try serve.get(
                "/?apikey=\(ServeProcess.tokens[0])&i=\(ServeEndToEndTests.corpusIDs[0])",
                headers: (0..<300).map { "X-H\($0): v" })
            #expect([0, 400, 431].contains(many.status))
            #expect(try standIn.requestCount() == 0)
            #expect(try serve.omdb("i=\(ServeEndToEndTests.corpusIDs[0])").status == 200)
        }
    }

    /// The head deadline counts from each answer's end: a connection whose requests keep coming
    /// stays open past it however long it lives, and one that goes slow after an answer is closed.
    @Test func theHeadDeadlineCountsFromEachAnswerOnAKeptAliveConnection() async throws {
        try await offThePool {
            try Self.servingOneFilm("serve-keepalive-deadline", arguments: ["--request-head-timeout", "3"]) {
                serve, id in
                // Connection A: 16 requests 0.3 s apart (about 5 s, past the 3 s deadline), all answered on
                // it. Connection B: one answer, then a head a byte every 0.3 s: the seconds until it is closed.
                let script =
                    Self.pythonClient(id)
                        + """
                        a = socket.create_connection(("127.0.0.1", \(serve.port)))
                        answered = 0
                        for _ in range(16):
                            a.sendall(request)
                            if answer(a) != b"200": break
                            answered += 1
                            time.sleep(0.3)
                        b = socket.create_connection(("127.0.0.1", \(serve.port)))
                        b.sendall(request)
                        first = answer(b)
                        start = time.time()
                        b.sendall(b"GET /?apikey=")
                        b.settimeout(0.3)
                        closed = None
                        while time.time() - start < 20:
                            try:
                                b.sendall(b"a")
                                if b.recv(1) == b"":
                                    closed = time.time() - start
                                    break
                            except socket.timeout:
                                pass
                            except OSError:
                                closed = time.time() - start
                                break
                        print(answered, first.decode() if first else "none", round(closed, 1) if closed is not None else "open")
                        """
                let client = try RunningBinary("/usr/bin/python3", ["-c", script])
                let output = client.wait(timeout: 60)
                let parts = output.stdout.split(separator: " ").map {
                    String($0).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                #expect(parts.count == 3, "\(output.stdout) \(output.stderr)")
                guard parts.count == 3 else { return }
                #expect(parts[0] == "16", "requests answered on one kept-alive connection: \(output.stdout)")
                #expect(parts[1] == "200")
                let closedAfter = Double(parts[2])
                #expect(closedAfter != nil, "a slow head after an answer was never cut: \(output.stdout)")
                #expect((closedAfter ?? 0) >= 2, "cut before its deadline: \(output.stdout)")
                #expect((closedAfter ?? 99) <= 8, "cut long after its deadline: \(output.stdout)")
            }
        }
    }

    /// A stop closes a kept-alive connection whose requests were all answered from memory at once:
    /// the server does not wait for it to go idle.
    @Test func sigtermClosesAKeptAliveConnectionOfHitsAtOnce() async throws {
        try await offThePool {
            // A head deadline longer than the test: only the stop can close the connection.
            try Self.servingOneFilm("serve-stop-hits", arguments: ["--request-head-timeout", "60"]) { serve, id in
                // Two hits on one connection, then SIGTERM with the connection left open: the seconds until
                // the server closes it.
                let script =
                    Self.pythonClient(id)
                        + """
                        import os, signal
                        a = socket.create_connection(("127.0.0.1", \(serve.port)))
                        answers = []
                        for _ in range(2):
                            a.sendall(request)
                            answers.append(answer(a))
                        os.kill(\(serve.binary.pid), signal.SIGTERM)
                        start = time.time()
                        a.settimeout(20)
                        try:
                            closed = a.recv(1) == b""
                        except socket.timeout:
                            closed = False
                        print(b",".join(x or b"none" for x in answers).decode(), "closed" if closed else "open", round(time.time() - start, 1))
                        """
                let client = try RunningBinary("/usr/bin/python3", ["-c", script])
                let output = client.wait(timeout: 60)
                let exit = serve.binary.wait(timeout: 30)
                let parts = output.stdout.split(separator: " ").map {
                    String($0).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                #expect(parts.count == 3, "\(output.stdout) \(output.stderr)")
                guard parts.count == 3 else { return }
                #expect(parts[0] == "200,200")
                #expect(parts[1] == "closed", "the kept-alive connection was left open: \(output.stdout)")
                #expect((Double(parts[2]) ?? 99) < 5, "closed only when it went idle: \(output.stdout)")
                #expect(exit.status == 0, "\(exit.stderr.suffix(2_000))")
            }
        }
    }

    /// A request that carries another inside its body, by `Content-Length` or chunked, gets one answer:
    /// the request in the body is never answered as a hit, on the bytes before the HTTP/1 decoder or after
    /// it. A request that closes the connection gets its answer and nothing after it is answered.
    @Test func aRequestHiddenInABodyIsNeverAnswered() async throws {
        try await offThePool {
            try Self.servingOneFilm("serve-smuggle", arguments: []) { serve, id in
                let script =
                    Self.pythonClient(id)
                        + """
                        def exchange(data, expected):
                            # Reads until the connection closes, or until a second passes with nothing more
                            # once the answers expected came (at most 20 s): an extra answer comes with them.
                            s = socket.create_connection(("127.0.0.1", \(serve.port)))
                            s.sendall(data)
                            s.settimeout(1)
                            got = b""
                            deadline = time.time() + 20
                            while time.time() < deadline:
                                try:
                                    chunk = s.recv(65536)
                                except socket.timeout:
                                    if got.count(b"HTTP/1.1 200 OK") >= expected: break
                                    continue
                                if not chunk: break
                                got += chunk
                            return got.count(b"HTTP/1.1 200 OK"), got.count(b'"imdbID":"\(id)"')
                        hidden = request.replace(b"Host: x", b"Host: y")
                        by_length = request.replace(b"\\r\\n\\r\\n", b"\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(hidden)) + hidden
                        chunk = b"%x\\r\\n" % len(hidden) + hidden + b"\\r\\n0\\r\\n\\r\\n"
                        chunked = request.replace(b"\\r\\n\\r\\n", b"\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n") + chunk
                        closing = request.replace(b"Host: x", b"Host: x\\r\\nConnection: close")
                        results = [exchange(by_length, 1), exchange(by_length + request, 2), exchange(chunked + request, 2), exchange(closing + request, 1)]
                        print(" ".join("%d/%d" % r for r in results))
                        """
                let client = try RunningBinary("/usr/bin/python3", ["-c", script])
                let output = client.wait(timeout: 60)
                // The hidden request alone: one answer; with a hit after it: two; chunked and a hit: two;
                // a closing request and a hit after it: one.
                #expect(
                    output.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1/1 2/2 2/2 1/1",
                    "\(output.stdout) \(output.stderr)")
            }
        }
    }

    /// The start of a Python script talking HTTP/1.1 to serve on a raw socket: `request` asks for
    /// film `id` with the first client token, and `answer(s)` reads one answer on `s` and gives
    /// its status (`None` if the connection closed first).
    private static func pythonClient(_ id: String) -> String {
        """
        import socket, time
        request = b"GET /?apikey=\(ServeProcess.tokens[0])&i=\(id) HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
        def answer(s):
            data = b""
            while b"\\r\\n\\r\\n" not in data:
                chunk = s.recv(65536)
                if not chunk: return None
                data += chunk
            head, _, body = data.partition(b"\\r\\n\\r\\n")
            length = int([l.split(b":")[1] for l in head.split(b"\\r\\n") if l.lower().startswith(b"content-length:")][0])
            while len(body) < length:
                chunk = s.recv(65536)
                if not chunk: return None
                body += chunk
            return head.split(b" ")[1]

        """
    }

    @Test func slowClientsAreDroppedAtTheHeadDeadlineWithoutStarvingOthers() async throws {
        try await offThePool {
            // A deadline well above what a request takes on a loaded machine, so that a request that
            // waited on the slow ones would show.
            try Self.servingOneFilm("serve-slow", arguments: ["--request-head-timeout", "8"]) { serve, id in
                // 200 connections each sending a request head a byte every half second.
                let script = """
                    import socket, sys, time
                    socks = []
                    for _ in range(200):
                        s = socket.create_connection(("127.0.0.1", \(serve.port)))
                        s.sendall(b"GET /?apikey=")
                        socks.append(s)
                    print("open", file=sys.stderr, flush=True)
                    start = time.time()
                    closed = set()
                    while time.time() - start < 20 and len(closed) < len(socks):
                        for i, s in enumerate(socks):
                            if i in closed: continue
                            try:
                                s.sendall(b"a")
                            except OSError:
                                closed.add(i)
                        time.sleep(0.5)
                    print(len(closed), round(time.time() - start, 1))
                    """
                let slow = try RunningBinary("/usr/bin/python3", ["-c", script])
                try waitFor(
                    "the slow connections are open", seconds: 30, every: 0.02, while: slow.isRunning, ifNotMet: .record
                ) { slow.stderrSoFar.contains("open") }
                for _ in 0..<20 {
                    let started = Date()
                    let answer = try serve.omdb("i=\(id)")
                    #expect(answer.status == 200)
                    #expect(Date().timeIntervalSince(started) < 4, "answered beside the slow connections")
                }
                let output = slow.wait(timeout: 60)
                let parts = output.stdout.split(separator: " ")
                #expect(parts.first == "200", "slow connections closed, seconds: \(output.stdout) \(output.stderr)")
            }
        }
    }

    /// `--io-threads N` reads the connections on N threads, and hits are answered there; without it,
    /// one a core (NIO's shared group).
    @Test(arguments: [nil, 1, 3])
    func ioThreadsSetsHowManyThreadsReadTheConnections(threads: Int?) async throws {
        try await offThePool {
            let arguments = threads.map { ["--io-threads", "\($0)"] } ?? []
            try Self.servingOneFilm("serve-io-threads-\(threads ?? 0)", arguments: arguments) { serve, id in
                let statuses = try (0..<3).map { _ in try serve.omdb("i=\(id)").status }
                #expect(statuses == [200, 200, 200])
                let names = Self.threadNames(serve.binary.pid)
                let own = names.filter { $0.hasPrefix("NIO-ELT-") }.count
                let shared = names.filter { $0.hasPrefix("NIO-SGLTN-") }.count
                if let threads {
                    #expect(own == threads && shared == 0, "\(names)")
                } else {
                    // NIO counts the cores its own way (cgroup quotas, CPU sets): one a core, by its count.
                    #expect(own == 0 && shared >= 1, "\(names)")
                }
                // Its own threads are let go at the end: SIGTERM still ends it cleanly.
                serve.binary.send(SIGTERM)
                let ended = serve.binary.wait(timeout: 30)
                #expect(ended.status == 0, "\(ended.stderr)")
            }
        }
    }

    /// A serve started again puts the films apps asked for most in memory at start, beside the
    /// server, and says how many; asking for them then costs no call.
    @Test func aServeStartedAgainHoldsTheMostRequestedFilmsInMemory() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-memory-fill")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let tokens = try ServeProcess.tokensFile(in: scratch.dir)
            let ids = Array(ServeEndToEndTests.corpusIDs.prefix(3))
            // serve's log line of what it held at start, once written.
            func heldLine(_ serve: ServeProcess) throws -> Substring? {
                var line: Substring?
                try waitFor("serve's line of what it held at start", seconds: 30, every: 0.02, ifNotMet: .returnFalse) {
                    line = serve.binary.stderrSoFar.split(separator: "\n").first {
                        $0.contains("films held in memory at start")
                    }
                    return line != nil
                }
                return line
            }
            let first = try ServeProcess(database: scratch.db, standIn: standIn, tokensFile: tokens)
            #expect(try heldLine(first)?.contains("films=0") == true, "\(first.binary.stderrSoFar)")
            for id in ids { #expect(try first.omdb("i=\(id)").status == 200) }
            // The request counts are written at the end.
            first.binary.send(SIGTERM)
            #expect(first.binary.wait(timeout: 30).status == 0)
            let again = try ServeProcess(database: scratch.db, standIn: standIn, tokensFile: tokens)
            #expect(try heldLine(again)?.contains("films=3") == true, "\(again.binary.stderrSoFar)")
            // From memory: with the rows gone from the cache, the films are still answered, with no call.
            let deleted = try ReliabilityProcess.run(
                "/usr/bin/sqlite3", [scratch.db, "PRAGMA busy_timeout = 5000; DELETE FROM films"])
            #expect(deleted.status == 0, "\(deleted.stderr)")
            for id in ids {
                let answer = try again.omdb("i=\(id)")
                #expect(answer.status == 200 && answer.header("X-Cache") == "hit", "\(id)")
            }
            #expect(try standIn.requestCount() == 3)
        }
    }

    /// The names of a process's threads, as the kernel keeps them (15 bytes at most).
    private static func threadNames(_ pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap {
            (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .newlines)
        }
    }

    /// Serve over a fresh cache in front of the stand-in, started with `arguments`, once it has
    /// answered one film (which it then holds): `body` gets it and the film's ID.
    private static func servingOneFilm(
        _ name: String, arguments: [String], _ body: (ServeProcess, String) throws -> Void
    ) throws {
        let scratch = try ReliabilityScratch(name)
        defer { scratch.removeUnlessKept() }
        let standIn = try StandInProcess()
        let serve = try ServeProcess(
            database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir),
            arguments: arguments)
        let id = ServeEndToEndTests.corpusIDs[1]
        #expect(try serve.omdb("i=\(id)").status == 200)
        try body(serve, id)
    }
}
