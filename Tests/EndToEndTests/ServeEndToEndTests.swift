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
                tokensFile: try ServeProcess.tokensFile(in: scratch.dir), arguments: ["--max-in-flight", "64"])
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
            #expect(try standIn.requestCount() == 50)
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
