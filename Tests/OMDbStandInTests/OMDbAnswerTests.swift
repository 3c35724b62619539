import Foundation
import OMDbStandIn
import Testing

/// OMDb answers: films, misses, and key errors.
@Suite struct OMDbAnswerTests {
    /// Film body is served byte for byte from the corpus directory.
    @Test func filmBodyIsServedByteForByteFromTheCorpusDirectory() throws {
        let directory = try StandInHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let films = try CorpusGenerator(seed: 3).write(count: 25, to: directory)
        let corpus = try FilmCorpus(directory: directory)
        try StandInHarness.withServer(corpus: corpus) { _, port in
            let connection = try RawHTTPConnection(port: port)
            for film in films {
                let response = try connection.get("/?apikey=demo&i=\(film.imdbID)")
                let file = try Data(contentsOf: directory.appendingPathComponent(film.imdbID + ".json"))
                #expect(response.status == 200)
                #expect(response.headers["content-type"] == "application/json; charset=utf-8")
                #expect(response.body == Array(file))
            }
        }
    }

    /// Query parameters work in any order and percent encoded.
    @Test func queryParametersWorkInAnyOrderAndPercentEncoded() throws {
        let film = StandInHarness.firstFilm(of: .series)
        let encodedID = film.imdbID.replacingOccurrences(of: "tt", with: "%74t")
        try StandInHarness.withServer { _, port in
            let connection = try RawHTTPConnection(port: port)
            let response = try connection.get("/?plot=short&i=\(encodedID)&type=series&apikey=%64emo")
            #expect(response.status == 200)
            #expect(response.body == film.body)
        }
    }

    /// Unknown or malformed IDs get 200 `Incorrect IMDb ID.`
    @Test(arguments: ["tt0000001", "tt12", "nm0000123", "", "tt0100000x"])
    func unknownOrMalformedIDsGetIncorrectIMDbID(id: String) throws {
        try StandInHarness.withServer { server, port in
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo&i=\(id)")
            #expect(response.status == 200)
            #expect(response.text == #"{"Response":"False","Error":"Incorrect IMDb ID."}"#)
            #expect(server.counters(forKey: "demo")?.notFound == 1)
        }
    }

    /// A missing or empty key gets 401 `No API key provided.`
    @Test func missingKeyGets401NoAPIKeyProvided() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer { server, port in
            let connection = try RawHTTPConnection(port: port)
            for target in ["/?i=\(film.imdbID)", "/?apikey=&i=\(film.imdbID)"] {
                let response = try connection.get(target)
                #expect(response.status == 401)
                #expect(response.text == #"{"Response":"False","Error":"No API key provided."}"#)
            }
            #expect(server.stats().unaccepted.missingKey == 2)
        }
    }

    /// A key that is not accepted gets 401 `Invalid API key!`
    @Test func unacceptedKeyGets401InvalidAPIKey() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer(keys: ["k1-secret", "k2-secret"]) { server, port in
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo&i=\(film.imdbID)")
            #expect(response.status == 401)
            #expect(response.text == #"{"Response":"False","Error":"Invalid API key!"}"#)
            let stats = server.stats()
            #expect(stats.unaccepted.invalidKey == 1)
            #expect(stats.keys.map(\.counters.requests) == [0, 0])
        }
    }

    /// Second key is accepted and counted separately.
    @Test func secondKeyIsAcceptedAndCountedSeparately() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer(keys: ["k1-secret", "k2-secret"]) { server, port in
            let connection = try RawHTTPConnection(port: port)
            #expect(try connection.get("/?apikey=k2-secret&i=\(film.imdbID)").status == 200)
            #expect(server.requestCount(forKey: "k2-secret") == 1)
            #expect(server.requestCount(forKey: "k1-secret") == 0)
        }
    }

    /// Title lookup is exact and case insensitive.
    @Test func titleLookupIsExactAndCaseInsensitive() throws {
        let film = StandInHarness.films.first { $0.kind == .movie && !$0.title.contains("\"") }!
        let title = film.title.uppercased().addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try StandInHarness.withServer { _, port in
            let connection = try RawHTTPConnection(port: port)
            let found = try connection.get("/?apikey=demo&t=\(title)")
            #expect(found.body == film.body)
            let missing = try connection.get("/?apikey=demo&t=No+Such+Film+Anywhere")
            #expect(missing.status == 200)
            #expect(missing.text == #"{"Response":"False","Error":"Movie not found!"}"#)
        }
    }

    /// Request without ID or title gets something went wrong.
    @Test func requestWithoutIDOrTitleGetsSomethingWentWrong() throws {
        try StandInHarness.withServer { server, port in
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo")
            #expect(response.text == #"{"Response":"False","Error":"Something went wrong."}"#)
            #expect(server.counters(forKey: "demo")?.badRequests == 1)
        }
    }

    /// Other paths get 404 and are not counted.
    @Test func otherPathsGet404AndAreNotCounted() throws {
        try StandInHarness.withServer { server, port in
            let connection = try RawHTTPConnection(port: port)
            #expect(try connection.get("/films/tt0100000.json?apikey=demo").status == 404)
            #expect(try connection.get("/__standin/nothing").status == 404)
            #expect(server.stats().totalRequests == 0)
        }
    }
}
