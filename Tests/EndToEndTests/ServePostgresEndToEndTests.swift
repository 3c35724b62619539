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
                let serve = try ServeProcess(
                    database: url, standIn: standIn, tokensFile: tokens, environment: ["PGPASSWORD": server.password])
                var urls: [String] = []
                for round in 0..<10 {
                    for id in ids { urls.append("\(serve.base)/?apikey=\(ServeProcess.tokens[0])&i=\(id)&n=\(round)") }
                }
                let directory = scratch.dir + "/storm"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let statuses = try HTTPAnswer.storm(urls, parallel: 200, directory: directory)
                #expect(statuses.allSatisfy { $0 == 200 })
                for (index, _) in urls.enumerated() {
                    let body = try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(index)"))
                    #expect(body == (try ServeEndToEndTests.corpusBody(ids[index % 20])))
                }
                #expect(try standIn.requestCount() == 20)
                let search = try serve.omdb("s=river")
                #expect(search.header("X-Cache") == "miss")
                serve.binary.send(SIGTERM)
                #expect(serve.binary.wait(timeout: 30).status == 0)
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
}
