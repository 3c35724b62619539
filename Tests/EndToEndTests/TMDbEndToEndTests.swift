import Foundation
import PostgresScratch
import Testing

/// TMDb beside OMDb with the built binary and the stand-in speaking both: a watchlist warmed from
/// both sources, the changes feed, 429 storms.
@Suite(.serialized) struct TMDbEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-tmdb-" + UUID().uuidString
    var db: String { dir + "/cache.sqlite" }
    let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
    static let token = "tmdb-demo-token"
    let environment = ["OMDB_API_KEY": "test-key-e2e", "TMDB_API_TOKEN": Self.token]

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    func sqlite(_ query: String) throws -> String { try BuiltBinaries.sqlite(db, query) }

    func warm(_ standIn: StandInProcess, _ extra: [String], now: String? = nil) throws -> BuiltBinaries.Output {
        var environment = environment
        if let now { environment["FILMCACHE_NOW"] = now }
        return try BuiltBinaries.run(
            "filmcache",
            [
                "warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL, "--tmdb-base-url",
                standIn.baseURL + "3",
            ]
                + extra + [watchlist], environment: environment)
    }

    @Test func aWatchlistWarmedFromBothSourcesStoresBothAndASecondRunSpendsNoCallOnEither() throws {
        let standIn = try StandInProcess()
        let first = try warm(standIn, ["--source", "omdb", "--source", "tmdb", "--tmdb-rate", "0"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("TMDb"), "\(first.stdout)")
        let films = Int(try sqlite("SELECT count(*) FROM films")) ?? 0
        let entries = Int(try sqlite("SELECT count(*) FROM tmdb_films")) ?? 0
        let negatives = Int(try sqlite("SELECT count(*) FROM tmdb_find WHERE tmdb_id IS NULL")) ?? 0
        #expect(
            films > 200 && entries > 150 && negatives > 0, "films \(films), TMDb \(entries), not on TMDb \(negatives)")
        // Both sources joined by IMDb ID, and TMDb's bodies kept as TMDb sent them.
        let joined = try sqlite(
            "SELECT count(*) FROM film_sources WHERE omdb_title IS NOT NULL AND tmdb_id IS NOT NULL")
        #expect((Int(joined) ?? 0) >= entries - 5, "\(joined)")
        let (id, type) = try tmdbEntry()
        let upstream = try standIn.tmdb("/3/\(type)/\(id)?append_to_response=external_ids,images,credits,release_dates")
        let stored = try sqlite("SELECT hex(body) FROM tmdb_films WHERE media_type = '\(type)' AND tmdb_id = \(id)")
        #expect(stored == upstream.map { String(format: "%02X", $0) }.joined())
        // No token in the database, in what was printed, or in the stand-in's record of arguments.
        #expect(try !sqlite(".dump").contains(Self.token))
        #expect(!first.stdout.contains(Self.token) && !first.stderr.contains(Self.token))

        let omdbCalls = try standIn.requestCount()
        let tmdbCalls = try standIn.tmdbStats()["requests"] as? Int
        let second = try warm(standIn, ["--source", "omdb", "--source", "tmdb"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try standIn.requestCount() == omdbCalls)
        #expect(try standIn.tmdbStats()["requests"] as? Int == tmdbCalls, "\(second.stdout)")
    }

    /// One TMDb entry of the cache: its ID and media type.
    func tmdbEntry() throws -> (String, String) {
        let row = try sqlite("SELECT tmdb_id || '|' || media_type FROM tmdb_films ORDER BY tmdb_id LIMIT 1")
        let parts = row.split(separator: "|").map(String.init)
        return (parts[0], parts[1])
    }

    @Test func theEntriesMarkedChangedInTheFeedAreExactlyThoseRefreshedTheNextNight() throws {
        let standIn = try StandInProcess()
        let night = "2026-11-20T02:00:00Z"
        let first = try warm(standIn, ["--source", "tmdb", "--tmdb-rate", "0"], now: night)
        #expect(first.status == 0, "\(first.stderr)")
        let before = try standIn.tmdbStats()["details_fetches"] as? [String: Int] ?? [:]
        #expect(before.count > 100)
        #expect(before.values.allSatisfy { $0 == 1 })

        // Seven entries the cache holds change on the next day.
        let held = try sqlite("SELECT media_type || ':' || tmdb_id FROM tmdb_films ORDER BY tmdb_id LIMIT 7")
            .split(separator: "\n").map(String.init)
        #expect(held.count == 7)
        let mark = try standIn.post(
            "__standin/tmdb/changes?ids=\(held.joined(separator: ","))&date=2026-11-21")
        #expect(mark.contains("movie"), "\(mark)")

        let next = try warm(standIn, ["--source", "tmdb", "--tmdb-rate", "0"], now: "2026-11-21T02:00:00Z")
        #expect(next.status == 0, "\(next.stderr)")
        let after = try standIn.tmdbStats()["details_fetches"] as? [String: Int] ?? [:]
        let refreshed = Set(after.filter { $0.value != before[$0.key] }.keys)
        #expect(refreshed == Set(held), "\(next.stdout)")
        #expect(next.stdout.contains("7 named by the changes feed"), "\(next.stdout)")
        let byKind = try standIn.tmdbStats()["by_kind"] as? [String: Int] ?? [:]
        #expect((byKind["changes"] ?? 0) >= 2)
    }

    @Test func aStormOf429sNeverSeesARequestInsideItsRetryAfterAndEveryEntryLands() throws {
        let standIn = try StandInProcess()
        _ = try standIn.post("__standin/tmdb/storm?requests=4&retry_after=1")
        let metrics = dir + "/filmcache.prom"
        let out = try warm(
            standIn, ["--source", "tmdb", "--tmdb-rate", "0", "--tmdb-max-in-flight", "8", "--metrics-file", metrics])
        #expect(out.status == 0, "\(out.stderr)")
        // A warm of TMDb alone still writes its metrics: the 429s it waited out among them.
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        let limited = text.split(separator: "\n").first { $0.hasPrefix("filmcache_tmdb_last_run_rate_limited ") }
        #expect((limited.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0) >= 4, "\(text)")
        #expect(text.contains("filmcache_tmdb_last_run_fetched "), "\(text)")
        let stats = try standIn.tmdbStats()
        #expect(stats["requests_inside_retry_after"] as? Int == 0, "\(stats)")
        let statuses = stats["by_status"] as? [String: Int] ?? [:]
        #expect((statuses["429"] ?? 0) >= 4)
        #expect(out.stdout.contains("rate limited"), "\(out.stdout)")
        let mapped = Int(try sqlite("SELECT count(*) FROM tmdb_find WHERE tmdb_id IS NOT NULL")) ?? 0
        #expect(Int(try sqlite("SELECT count(DISTINCT media_type || tmdb_id) FROM tmdb_films")) == mapped)
    }

    @Test func anOMDbKeyRefusedStopsTMDbsPartTooAndKeepsWhatItStored() throws {
        let standIn = try StandInProcess()
        let out = try BuiltBinaries.run(
            "filmcache",
            [
                "warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL, "--tmdb-base-url",
                standIn.baseURL + "3", "--source", "omdb", "--source", "tmdb", watchlist,
            ], environment: ["OMDB_API_KEY": "not-the-key", "TMDB_API_TOKEN": Self.token])
        #expect(out.status == 78 && out.stderr.contains("OMDb rejected the API key"), "\(out.stderr)")
        let asked = try standIn.tmdbStats()["find_fetches"] as? [String: Int] ?? [:]
        #expect(asked.count < 292, "TMDb's part stopped with OMDb's: \(asked.count) IDs asked")
        let stored = Int(try sqlite("SELECT count(*) FROM tmdb_find")) ?? -1
        #expect(stored >= 0 && stored <= asked.count)
    }

    @Test func withoutATokenATMDbWarmStopsBeforeAnyCallAndARefusedTokenExits78() throws {
        let standIn = try StandInProcess()
        let missing = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", db, "--source", "tmdb", "--tmdb-base-url", standIn.baseURL + "3", watchlist],
            environment: [:])
        #expect(missing.status == 78 && missing.stderr.contains("TMDB_API_TOKEN"), "\(missing.stderr)")
        let refused = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", db, "--source", "tmdb", "--tmdb-base-url", standIn.baseURL + "3", watchlist],
            environment: ["TMDB_API_TOKEN": "not-the-token-at-all"])
        #expect(refused.status == 78, "\(refused.stdout)\n\(refused.stderr)")
        #expect(!refused.stdout.contains("not-the-token") && !refused.stderr.contains("not-the-token"))
        #expect(try standIn.tmdbStats()["unauthorized"] as? Int == 1)
    }
}

extension StandInProcess {
    /// The stand-in's TMDb statistics.
    func tmdbStats() throws -> [String: Any] {
        let data = try curl(["-fsS", baseURL + "__standin/stats"])
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return object?["tmdb"] as? [String: Any] ?? [:]
    }

    /// A TMDb answer's body straight from the stand-in, with its token.
    func tmdb(_ path: String) throws -> [UInt8] {
        // The header from a file: a token is never a process argument.
        let header = NSTemporaryDirectory() + "tmdb-header-" + UUID().uuidString
        try "Authorization: Bearer \(TMDbEndToEndTests.token)\n".write(
            toFile: header, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: header) }
        return Array(try curl(["-fsS", "-H", "@" + header, baseURL + path.dropFirst()]))
    }

    /// POSTs to a control path and returns the answer's text.
    @discardableResult
    func post(_ path: String) throws -> String {
        String(decoding: try curl(["-fsS", "-X", "POST", baseURL + path]), as: UTF8.self)
    }

    private func curl(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }
}

/// `filmcache serve` in front of TMDb, with the built binary and the stand-in as TMDb.
@Suite(.serialized) struct TMDbServeEndToEndTests {
    @Test func serveAnswersAMovieAndAFindByteForByteAsTMDbDidThenFromTheCache() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-tmdb")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir),
                arguments: ["--tmdb-base-url", standIn.baseURL + "3", "--tmdb-rate", "0"],
                environment: ["TMDB_API_TOKEN": TMDbEndToEndTests.token])
            let imdbID = TMDbServeEndToEndTests.onTMDb(standIn)
            let find = "/3/find/\(imdbID)?external_source=imdb_id"
            let upstreamFind = try standIn.tmdb(find)
            let movieID = try #require(
                (try JSONSerialization.jsonObject(with: Data(upstreamFind)) as? [String: Any])
                    .flatMap { ($0["movie_results"] as? [[String: Any]])?.first?["id"] as? Int })
            let movie = "/3/movie/\(movieID)?append_to_response=credits,external_ids"
            let upstreamMovie = try standIn.tmdb(movie)
            let before = try standIn.tmdbStats()["requests"] as? Int ?? -1

            // The app's own token, as api_key and as Bearer; TMDb's token never leaves serve.
            let viaKey = try serve.get(find + "&api_key=\(ServeProcess.tokens[0])")
            #expect(viaKey.status == 200 && Array(viaKey.body) == upstreamFind, "\(viaKey.text)")
            let viaBearer = try serve.get(movie, headers: ["Authorization: Bearer \(ServeProcess.tokens[1])"])
            #expect(viaBearer.status == 200 && Array(viaBearer.body) == upstreamMovie, "\(viaBearer.text)")
            #expect(try standIn.tmdbStats()["requests"] as? Int == before + 2)

            // Then from the cache: the same bytes, no call.
            let again = try serve.get(movie, headers: ["Authorization: Bearer \(ServeProcess.tokens[0])"])
            let findAgain = try serve.get(find + "&api_key=\(ServeProcess.tokens[1])")
            #expect(Array(again.body) == upstreamMovie && Array(findAgain.body) == upstreamFind)
            #expect(again.header("X-Cache") == "hit" && findAgain.header("X-Cache") == "hit")
            #expect(try standIn.tmdbStats()["requests"] as? Int == before + 2)

            let refused = try serve.get(movie + "&api_key=not-a-token")
            #expect(refused.status == 401 && refused.text.contains("\"status_code\":7"), "\(refused.text)")
            for answer in [viaKey, viaBearer, again, findAgain, refused] {
                #expect(!answer.text.contains(TMDbEndToEndTests.token))
                #expect(!answer.headers.values.contains { $0.contains(TMDbEndToEndTests.token) })
            }
            #expect(try !scratch.sqlite(".dump").contains(TMDbEndToEndTests.token))
            #expect(!serve.binary.stderrSoFar.contains(TMDbEndToEndTests.token))
        }
    }

    /// A corpus ID TMDb lists as a film.
    static func onTMDb(_ standIn: StandInProcess) -> String {
        let ids = ServeEndToEndTests.corpusIDs
        for id in ids {
            let body = (try? standIn.tmdb("/3/find/\(id)?external_source=imdb_id")) ?? []
            if String(decoding: body, as: UTF8.self).contains("\"media_type\":\"movie\"") { return id }
        }
        return ids[0]
    }
}

/// TMDb's part of warms sharing a PostgreSQL cache.
@Suite(.serialized, .timeLimit(.minutes(5))) struct TMDbPostgresEndToEndTests {
    @Test func twoWarmsSharingACacheAskTMDbOnceForEachIDAndEachEntry() async throws {
        try await offThePool {
            let server = try ScratchPostgres.shared()
            let scratch = try ReliabilityScratch("tmdb-pg")
            defer { scratch.removeUnlessKept() }
            let url = server.url(database: try server.createDatabase())
            // Slow answers, so the two runs overlap for most of the night.
            let standIn = try StandInProcess(arguments: ["--latency-ms", "20"])
            let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
            let warms = try (0..<2).map { _ in
                try RunningBinary(
                    "filmcache",
                    [
                        "warm", "--db", url, "--source", "tmdb", "--tmdb-base-url", standIn.baseURL + "3",
                        "--tmdb-rate", "0", "--tmdb-max-in-flight", "4", "--no-progress", watchlist,
                    ], environment: ["TMDB_API_TOKEN": TMDbEndToEndTests.token, "PGPASSWORD": server.password])
            }
            let outputs = warms.map { $0.wait(timeout: 240) }
            for out in outputs { #expect(out.status == 0, "\(out.stdout)\n\(out.stderr)") }
            let stats = try standIn.tmdbStats()
            let details = stats["details_fetches"] as? [String: Int] ?? [:]
            let finds = stats["find_fetches"] as? [String: Int] ?? [:]
            #expect(details.count > 150 && finds.count == 292, "\(details.count) entries, \(finds.count) IDs")
            #expect(details.values.allSatisfy { $0 == 1 }, "an entry fetched twice: \(details.filter { $0.value > 1 })")
            #expect(finds.values.allSatisfy { $0 == 1 }, "an ID resolved twice: \(finds.filter { $0.value > 1 })")
            let database = String(url.split(separator: "/").last ?? "")
            let stored = try server.sql("SELECT count(*) FROM tmdb_films", database: database)
            #expect(Int(stored.trimmingCharacters(in: .whitespacesAndNewlines)) == details.count)
        }
    }
}
