import Foundation
import PostgresScratch
import Testing

/// `filmcache serve` on a PostgreSQL cache: the same answers, stored where warms on every host read them.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ServePostgresEndToEndTests {
    @Test func serveOnPostgreSQLFetchesEachMissingFilmOnceAndKeepsAnswersAndDemandThere() async throws {
        try await offThePool {
            let server = try ScratchPostgres.shared()
            let scratch = try ReliabilityScratch("serve-pg")
            defer { scratch.removeUnlessKept() }
            let name = try server.createDatabase()
            let url = server.url(database: name)
            func count(_ query: String) throws -> Int {
                Int(try server.sql(query, database: name).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
            }
            let standIn = try StandInProcess(arguments: ["--latency-ms", "200"])
            let tokens = try ServeProcess.tokensFile(in: scratch.dir)
            let ids = Array(ServeEndToEndTests.corpusIDs.prefix(20))
            do {
                // A request waits on its film's one call for up to --request-timeout, then gets 503: on a loaded
                // machine the 200 at once wait longer than the default 10 s.
                let serve = try ServeProcess(
                    database: url, standIn: standIn, tokensFile: tokens, arguments: ["--request-timeout", "120"],
                    environment: ["PGPASSWORD": server.password])
                var urls: [String] = []
                for round in 0..<10 {
                    for id in ids { urls.append("\(serve.base)/?apikey=\(ServeProcess.tokens[0])&i=\(id)&n=\(round)") }
                }
                let directory = scratch.dir + "/storm"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let statuses = try HTTPAnswer.storm(urls, parallel: 200, directory: directory)
                #expect(
                    statuses.allSatisfy { $0 == 200 },
                    "statuses: \(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))")
                for (index, _) in urls.enumerated() where statuses[index] == 200 {
                    let body = try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(index)"))
                    #expect(body == (try ServeEndToEndTests.corpusBody(ids[index % 20])))
                }
                #expect(try standIn.requestCount() == 20)
                let search = try serve.omdb("s=river")
                #expect(search.header("X-Cache") == "miss")
                serve.binary.send(SIGTERM)
                let out = serve.binary.wait(timeout: 30)
                #expect(out.status == 0)
                // Its pool starts beside the fill's first query: no warning that a lease came first.
                #expect(!out.stderr.contains("level=warning"), "\(out.stderr)")
            }
            #expect(try count("SELECT count(*) FROM films") == 20)
            #expect(try count("SELECT count(*) FROM answers WHERE query = 's=river'") == 1)
            #expect(try count("SELECT sum(requests) FROM demand") == 200)
            #expect(try count("SELECT sum(used) FROM quota_ledger") == 21)
            // A second serve process on the same cache answers all of it with no call.
            let again = try ServeProcess(
                database: url, standIn: standIn, tokensFile: tokens, environment: ["PGPASSWORD": server.password])
            for id in ids { #expect(try again.omdb("i=\(id)").header("X-Cache") == "hit") }
            #expect(try again.omdb("s=RIVER").header("X-Cache") == "hit")
            #expect(try standIn.requestCount() == 21)
        }
    }

    /// Two serve processes on one database behind a balancer: a storm asking both for the same
    /// missing films and queries at once asks OMDb once for each between them.
    @Test func twoServeProcessesOnOneDatabaseAskOMDbOnceForEachFilmAndQueryBetweenThem() async throws {
        try await offThePool {
            let server = try ScratchPostgres.shared()
            let scratch = try ReliabilityScratch("serve-pg-two")
            defer { scratch.removeUnlessKept() }
            let name = try server.createDatabase()
            let url = server.url(database: name)
            let standIn = try StandInProcess(arguments: ["--latency-ms", "300"])
            let tokens = try ServeProcess.tokensFile(in: scratch.dir)
            let environment = ["PGPASSWORD": server.password]
            // As above: the storm's requests may wait on their one call longer than the default 10 s.
            let first = try ServeProcess(
                database: url, standIn: standIn, tokensFile: tokens, arguments: ["--request-timeout", "120"],
                environment: environment)
            let second = try ServeProcess(
                database: url, standIn: standIn, tokensFile: tokens, arguments: ["--request-timeout", "120"],
                environment: environment)
            let ids = Array(ServeEndToEndTests.corpusIDs.prefix(40))
            // No `t=` that finds a film: its answer would store one of `ids` and spare that ID's call.
            let queries = ["s=river", "s=night", "t=nothing%20here", "s=zzzz", "Season=1&i=\(ids[0])"]
            var asked: [(url: String, expected: String?)] = []
            for round in 0..<3 {
                for serve in [first, second] {
                    for id in ids {
                        asked.append(("\(serve.base)/?apikey=\(ServeProcess.tokens[1])&i=\(id)&n=\(round)", id))
                    }
                    for query in queries {
                        asked.append(("\(serve.base)/?apikey=\(ServeProcess.tokens[0])&\(query)", nil))
                    }
                }
            }
            let directory = scratch.dir + "/storm"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let statuses = try HTTPAnswer.storm(asked.map(\.url), parallel: 200, directory: directory)
            #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses.filter { $0 != 200 })")
            for (index, request) in asked.enumerated() {
                guard let id = request.expected else { continue }
                let body = try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(index)"))
                #expect(body == (try ServeEndToEndTests.corpusBody(id)), "\(request.url)")
            }
            #expect(try standIn.requestCount() == ids.count + queries.count)
            #expect(
                try server.sql("SELECT count(*) FROM claims", database: name).trimmingCharacters(
                    in: .whitespacesAndNewlines)
                    == "0", "every flight let go")
            #expect(
                try server.sql("SELECT sum(used) FROM quota_ledger", database: name)
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "\(ids.count + queries.count)")
        }
    }

    /// A serve process killed mid-call holds its films no longer than its session with the server
    /// lives, which ends with it: another process takes the film at once though the flight's lease
    /// (30 s) is longer than its clients wait (20 s), and the rows of the killed process's other
    /// flights are deleted, not left behind.
    @Test func aServeProcessKilledMidCallHasItsFilmsTakenAtOnceAndItsRowsDeleted() async throws {
        try await offThePool {
            let server = try ScratchPostgres.shared()
            let scratch = try ReliabilityScratch("serve-pg-killed")
            defer { scratch.removeUnlessKept() }
            let name = try server.createDatabase()
            let url = server.url(database: name)
            let standIn = try StandInProcess(arguments: ["--latency-ms", "4000"])
            let tokens = try ServeProcess.tokensFile(in: scratch.dir)
            let environment = ["PGPASSWORD": server.password]
            let (id, other) = (ServeEndToEndTests.corpusIDs[7], ServeEndToEndTests.corpusIDs[8])
            let doomed = try ServeProcess(
                database: url, standIn: standIn, tokensFile: tokens, environment: environment)
            let survivor = try ServeProcess(
                database: url, standIn: standIn, tokensFile: tokens, arguments: ["--request-timeout", "20"],
                environment: environment)
            func claims() throws -> String {
                try server.sql("SELECT count(*) FROM claims", database: name).trimmingCharacters(
                    in: .whitespacesAndNewlines)
            }
            // Both flights held, the first call under way (the process may send them one at a time).
            let asked = [id, other].map { film in OnAThread { try? doomed.omdb("i=\(film)") } }
            try waitFor("both flights held and a call sent", seconds: 20, ifNotMet: .returnFalse) {
                try claims() == "2" && standIn.requestCount() >= 1
            }
            #expect(try claims() == "2", "both flights held")
            let sentByDoomed = try standIn.requestCount()
            doomed.binary.send(SIGKILL)
            _ = doomed.binary.wait(timeout: 10)
            asked.forEach { _ = $0.value }
            let answer = try? survivor.get("/?apikey=\(ServeProcess.tokens[0])&i=\(id)", timeout: 60)
            #expect(answer?.status == 200, "answered within the client's 20 s, under the 30 s lease")
            #expect(answer?.body == (try ServeEndToEndTests.corpusBody(id)))
            #expect(try standIn.requestCount() == sentByDoomed + 1)
            #expect(try claims() == "0", "the killed process's other flight deleted")
        }
    }

    /// A stop (SIGTERM) while serve fills its memory at start cuts the fill short, whether the
    /// database answers or has stopped answering, and loses none of the demand it read.
    @Test func aStopDuringTheFillAtStartEndsItAtOnceEvenWithTheDatabaseFrozen() async throws {
        try await offThePool {
            // A server of its own: freezing the shared one would fail the tests beside it.
            let server = try ScratchPostgres()
            defer { server.remove() }
            let scratch = try ReliabilityScratch("serve-pg-fill-stop")
            defer { scratch.removeUnlessKept() }
            let name = try server.createDatabase()
            let url = server.url(database: name)
            let environment = ["PGPASSWORD": server.password]
            let filled = try BuiltBinaries.run(
                "filmcache-bench", ["fill", "--db", url, "--rows", "20000"], environment: environment)
            #expect(filled.status == 0, "\(filled.stderr)")
            // Every film asked for once: a fill reads each with a query of its own, which takes this
            // debug build far longer than the 20 s a stop is given below.
            _ = try server.sql(
                "INSERT INTO demand (imdb_id, requests, last_requested_at) SELECT imdb_id, 1, now() FROM films",
                database: name)
            let standIn = try StandInProcess()
            let tokens = try ServeProcess.tokensFile(in: scratch.dir)
            for frozen in [false, true] {
                let serve = try ServeProcess(
                    database: url, standIn: standIn, tokensFile: tokens, environment: environment)
                if frozen { try server.freeze() }
                defer { try? server.thaw() }
                serve.binary.send(SIGTERM)
                let stopped = Date()
                let out = serve.binary.wait(timeout: 120)
                let took = Date().timeIntervalSince(stopped)
                try server.thaw()
                #expect(out.status == 0, "frozen \(frozen): \(out.stderr)")
                #expect(took < 20, "frozen \(frozen): the stop waited \(Int(took)) s on the fill: \(out.stderr)")
                #expect(out.stderr.contains("msg=\"stopped\""), "frozen \(frozen): \(out.stderr)")
                #expect(
                    try server.sql("SELECT count(*), sum(requests) FROM demand", database: name)
                        .trimmingCharacters(in: .whitespacesAndNewlines) == "20000|20000")
                #expect(try standIn.requestCount() == 0)
            }
        }
    }
}
