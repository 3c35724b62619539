import Foundation
import OMDbStandIn
import Testing

/// Keys, quota, faults and counting hold for `s=`, `Season=` and `plot=full` exactly as for `i=`.
@Suite struct QueryFormPolicyTests {
    /// One request of every new form against the seed-1 sample.
    static let targets: [String] = {
        let (series, seasons) = SeasonAnswerTests.seriesSeasons.first { !$0.seasons.isEmpty }!
        let (season, episodes) = seasons.min { $0.key < $1.key }!
        return [
            "s=the", "s=the&page=2", "s=harbor&type=series", "s=of&y=2019", "s=xyzzy",
            "i=\(series.imdbID)&Season=\(season)", "i=\(series.imdbID)&Season=\(season)&Episode=\(episodes[0].number)",
            "t=\(SearchAnswerTests.escaped(series.title))&Season=\(season)", "i=\(series.imdbID)&plot=full",
        ]
    }()

    /// Without a key or with a wrong one, every form gets OMDb's 401 and is not counted against a key.
    @Test func everyFormNeedsAnAcceptedKey() throws {
        try StandInHarness.withServer(corpus: SearchAnswerTests.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            for target in Self.targets {
                let missing = try connection.get("/?\(target)")
                #expect(missing.status == 401)
                #expect(missing.text == #"{"Response":"False","Error":"No API key provided."}"#)
                let wrong = try connection.get("/?apikey=wrong&\(target)")
                #expect(wrong.status == 401)
                #expect(wrong.text == #"{"Response":"False","Error":"Invalid API key!"}"#)
            }
            let stats = server.stats()
            #expect(stats.unaccepted.missingKey == Self.targets.count)
            #expect(stats.unaccepted.invalidKey == Self.targets.count)
            #expect(stats.keys[0].counters.requests == 0)
        }
    }

    /// Every form counts against the daily limit, and past it gets `Request limit reached!`
    @Test func everyFormCountsAgainstTheDailyLimit() throws {
        let limit = 4
        try StandInHarness.withServer(
            corpus: SearchAnswerTests.corpus, behaviour: StandInBehaviour(dailyLimit: limit)
        ) { server, port in
            let connection = try RawHTTPConnection(port: port)
            let statuses = try Self.targets.map { try connection.get("/?apikey=demo&\($0)") }
            #expect(statuses.prefix(limit).allSatisfy { $0.status == 200 })
            for response in statuses.dropFirst(limit) {
                #expect(response.status == 401)
                #expect(response.text == #"{"Response":"False","Error":"Request limit reached!"}"#)
            }
            let counters = try #require(server.counters(forKey: "demo"))
            #expect(counters.requests == Self.targets.count)
            #expect(counters.limitReached == Self.targets.count - limit)
            #expect(counters.searches == 4)
            #expect(counters.notFound == 0)
        }
    }

    /// Faults hit every form: with a fault rate of 1 each request gets the fault, none the answer.
    @Test func faultsHitEveryForm() throws {
        try StandInHarness.withServer(
            corpus: SearchAnswerTests.corpus,
            behaviour: StandInBehaviour(faultRate: 1, faults: [.serviceUnavailable], latencyMilliseconds: 30)
        ) { server, port in
            let connection = try RawHTTPConnection(port: port)
            for target in Self.targets {
                let started = ContinuousClock.now
                let response = try connection.get("/?apikey=demo&\(target)")
                #expect(ContinuousClock.now - started >= .milliseconds(30))
                #expect(response.status == 503, "\(target)")
            }
            let counters = try #require(server.counters(forKey: "demo"))
            #expect(counters.faults == Self.targets.count)
            #expect(counters.searches + counters.seasons + counters.films + counters.notFound == 0)
        }
    }

    /// Each form is counted where it belongs: searches, seasons, films, misses.
    @Test func eachFormIsCountedWhereItBelongs() throws {
        try StandInHarness.withServer(corpus: SearchAnswerTests.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            for target in Self.targets { _ = try connection.get("/?apikey=demo&\(target)") }
            let counters = try #require(server.counters(forKey: "demo"))
            #expect(counters.searches == 4)
            #expect(counters.notFound == 1)
            #expect(counters.seasons == 2)
            #expect(counters.films == 2)
            #expect(counters.requests == Self.targets.count)
            let stats = String(decoding: server.stats().jsonData(), as: UTF8.self)
            #expect(stats.contains(#""searches" : 4"#))
            #expect(stats.contains(#""seasons" : 2"#))
        }
    }

    /// Two servers over the same corpus answer every form with the same bytes.
    @Test func everyFormIsDeterministic() throws {
        let first = try StandInHarness.answers(to: Self.targets, corpus: FilmCorpus(generatedCount: 300, seed: 1))
        let second = try StandInHarness.answers(to: Self.targets, corpus: FilmCorpus(generatedCount: 300, seed: 1))
        #expect(first == second)
        #expect(Set(first).count == Self.targets.count - 1, "only the season list by ID and by title share a body")
    }
}
