import Foundation
import OMDbStandIn
import Testing

/// TMDb API v3 on the stand-in: find, details with appended parts, seasons, search, configuration,
/// images and tokens, over a real loopback server.
@Suite struct TMDbAnswerTests {
    /// The 300 films of seed 1.
    static let films = SearchAnswerTests.films
    /// `films` as a corpus.
    static let corpus = SearchAnswerTests.corpus

    /// Runs `body` with a server over the 300 films and one connection to it.
    static func withConnection<Result>(
        behaviour: StandInBehaviour = StandInBehaviour(),
        _ body: (OMDbStandInServer, RawHTTPConnection) throws -> Result
    ) throws -> Result {
        try StandInHarness.withServer(corpus: corpus, behaviour: behaviour) { server, port in
            try body(server, RawHTTPConnection(port: port))
        }
    }

    /// The `/find` answer for `imdbID`.
    static func find(_ imdbID: String, on connection: RawHTTPConnection) throws -> [String: Any] {
        let response = try connection.tmdb("/3/find/\(imdbID)?external_source=imdb_id")
        #expect(response.status == 200)
        return TMDbReference.object(response.body)
    }

    /// Whether TMDb lists `film` (its `/find` has a result).
    static func isListed(_ film: GeneratedFilm, on connection: RawHTTPConnection) throws -> Bool {
        let object = try find(film.imdbID, on: connection)
        return ["movie_results", "tv_results"].contains { !((object[$0] as? [Any]) ?? []).isEmpty }
    }

    /// The first film of `kind` TMDb lists (and, for a series, with episodes in the corpus).
    static func listedFilm(_ kind: FilmKind, on connection: RawHTTPConnection) throws -> GeneratedFilm {
        try #require(
            films.first { film in
                film.kind == kind && (kind != .series || !OMDbReference.seasons(of: film.imdbID, in: films).isEmpty)
                    && (try? isListed(film, on: connection)) == true
            })
    }

    /// `/find` lists a movie in `movie_results` and a series in `tv_results` with TMDb's list
    /// fields; an ID that is no film answers every list empty.
    @Test func findListsMoviesAndSeriesAndAnswersUnknownIDsEmpty() throws {
        try Self.withConnection { _, connection in
            for kind in [FilmKind.movie, .series] {
                let film = try Self.listedFilm(kind, on: connection)
                let response = try connection.tmdb("/3/find/\(film.imdbID)?external_source=imdb_id")
                #expect(response.headers["content-type"] == "application/json;charset=utf-8")
                let object = TMDbReference.object(response.body)
                #expect(
                    Set(object.keys) == [
                        "movie_results", "person_results", "tv_results", "tv_episode_results", "tv_season_results",
                    ])
                let listKey = kind == .movie ? "movie_results" : "tv_results"
                let otherKey = kind == .movie ? "tv_results" : "movie_results"
                let items = try #require(object[listKey] as? [[String: Any]])
                #expect(items.count == 1)
                #expect((object[otherKey] as? [Any])?.isEmpty == true)
                let item = try #require(items.first)
                #expect(item["id"] as? Int == TMDbReference.tmdbID(film.imdbID))
                #expect(item["media_type"] as? String == (kind == .movie ? "movie" : "tv"))
                #expect(item[kind == .movie ? "title" : "name"] as? String == film.title)
                #expect(item["vote_count"] is Int)
                #expect(item["popularity"] is Double)
                #expect(item["genre_ids"] is [Int])
            }
            let unknown = try Self.find("tt0000001", on: connection)
            #expect(unknown.values.allSatisfy { ($0 as? [Any])?.isEmpty == true })
            #expect(unknown.count == 5)
            let noSource = try connection.tmdb("/3/find/tt0000001")
            #expect(noSource.status == 400)
            #expect(TMDbReference.object(noSource.body)["success"] as? Bool == false)
        }
    }

    /// About one film in ten is not on TMDb: its `/find` lists nothing, and the same ones every time.
    @Test func aboutOneFilmInTenIsNotOnTMDb() throws {
        let missing = try Self.withConnection { _, connection in
            try Self.films.filter { try !Self.isListed($0, on: connection) }.map(\.imdbID)
        }
        #expect((10...60).contains(missing.count))
        let again = try Self.withConnection { _, connection in
            try Self.films.filter { missing.contains($0.imdbID) }.filter { try !Self.isListed($0, on: connection) }
                .map(\.imdbID)
        }
        #expect(again == missing)
    }

    /// `/movie/{id}` carries `imdb_id` at the top and the appended parts as keys, agreeing with the
    /// OMDb body on title, plot and runtime.
    @Test func movieDetailsCarryTheIMDbIDAndTheAppendedParts() throws {
        try Self.withConnection { _, connection in
            let film = try Self.listedFilm(.movie, on: connection)
            let id = TMDbReference.tmdbID(film.imdbID)
            let response = try connection.tmdb(
                "/3/movie/\(id)?append_to_response=external_ids,images,credits,release_dates")
            #expect(response.status == 200)
            let object = TMDbReference.object(response.body)
            let omdb = OMDbReference.fields(film.body)
            #expect(object["id"] as? Int == id)
            #expect(object["imdb_id"] as? String == film.imdbID)
            #expect(object["title"] as? String == film.title)
            #expect(object["overview"] as? String == (omdb["Plot"] == "N/A" ? "" : omdb["Plot"]))
            if let runtime = omdb["Runtime"], runtime.hasSuffix(" min"), !runtime.contains(" h ") {
                #expect(object["runtime"] as? Int == Int(runtime.dropLast(4)))
            }
            #expect((object["external_ids"] as? [String: Any])?["imdb_id"] as? String == film.imdbID)
            let images = try #require(object["images"] as? [String: Any])
            #expect(images["backdrops"] is [[String: Any]] && images["posters"] is [[String: Any]])
            let credits = try #require(object["credits"] as? [String: Any])
            #expect(credits["cast"] is [[String: Any]] && credits["crew"] is [[String: Any]])
            #expect((object["release_dates"] as? [String: Any])?["results"] is [[String: Any]])
            #expect(object["belongs_to_collection"] != nil)
            #expect(object["genres"] is [[String: Any]])

            let plain = try connection.tmdb("/3/movie/\(id)")
            #expect(TMDbReference.object(plain.body)["external_ids"] == nil)
            let tooMany = (1...21).map { "part\($0)" }.joined(separator: ",")
            #expect(try connection.tmdb("/3/movie/\(id)?append_to_response=\(tooMany)").status == 400)
        }
    }

    /// `/tv/{id}` carries the IMDb ID only inside `external_ids`, and its seasons list the corpus's episodes.
    @Test func seriesCarryTheIMDbIDOnlyInExternalIDs() throws {
        try Self.withConnection { _, connection in
            let series = try Self.listedFilm(.series, on: connection)
            let id = TMDbReference.tmdbID(series.imdbID)
            let response = try connection.tmdb("/3/tv/\(id)?append_to_response=external_ids,content_ratings")
            #expect(response.status == 200)
            let object = TMDbReference.object(response.body)
            #expect(object["imdb_id"] == nil)
            #expect(object["name"] as? String == series.title)
            #expect((object["external_ids"] as? [String: Any])?["imdb_id"] as? String == series.imdbID)
            #expect(object["content_ratings"] is [String: Any])
            #expect(try connection.tmdb("/3/movie/\(id)").status == 404)

            let seasons = OMDbReference.seasons(of: series.imdbID, in: Self.films)
            let (number, episodes) = try #require(seasons.min { $0.key < $1.key })
            let season = try connection.tmdb("/3/tv/\(id)/season/\(number)")
            #expect(season.status == 200)
            let listed = TMDbReference.results(season.body, "episodes")
            #expect(listed.map { $0["episode_number"] as? Int } == episodes.map(\.number))
            #expect(listed.map { $0["name"] as? String } == episodes.map(\.film.title))
            let first = try #require(episodes.first)
            let episode = try connection.tmdb("/3/tv/\(id)/season/\(number)/episode/\(first.number)")
            #expect(TMDbReference.object(episode.body)["name"] as? String == first.film.title)
            #expect(TMDbReference.object(episode.body)["show_id"] as? Int == id)
            #expect(try connection.tmdb("/3/tv/\(id)/season/99").status == 404)
        }
    }

    /// Every answer for the same resource is the same bytes, on one connection or another.
    @Test func answersAreByteIdenticalOnRepeat() throws {
        try StandInHarness.withServer(corpus: Self.corpus) { _, port in
            let first = try RawHTTPConnection(port: port)
            let film = try Self.listedFilm(.movie, on: first)
            let series = try Self.listedFilm(.series, on: first)
            let targets = [
                "/3/find/\(film.imdbID)?external_source=imdb_id",
                "/3/movie/\(TMDbReference.tmdbID(film.imdbID))?append_to_response=credits,images,external_ids",
                "/3/tv/\(TMDbReference.tmdbID(series.imdbID))?append_to_response=external_ids",
                "/3/search/multi?query=the", "/3/configuration",
            ]
            let second = try RawHTTPConnection(port: port)
            for target in targets {
                let answers = try [first, first, second].map { try $0.tmdb(target).body }
                #expect(answers[0].count > 20)
                #expect(answers[1] == answers[0])
                #expect(answers[2] == answers[0])
            }
        }
    }

    /// No token and a wrong one get TMDb's 401; a bearer token and `api_key` are both accepted;
    /// stats name tokens by fingerprint only.
    @Test func tokensAreCheckedAsBearerOrAPIKey() throws {
        let server = OMDbStandInServer(
            configuration: StandInConfiguration(
                corpus: StandInHarness.corpus, tmdbTokens: ["first-secret-token", "second-secret-token"]))
        let port = try server.start()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        let body =
            #"{"status_code":7,"status_message":"Invalid API key: You must be granted a valid key.","success":false}"#
        for auth in [TMDbAuth.none, .bearer("wrong-token"), .apiKey("wrong-token"), .demo] {
            let response = try connection.tmdb("/3/configuration", auth: auth)
            #expect(response.status == 401)
            #expect(response.text == body)
        }
        #expect(try connection.tmdb("/3/configuration", auth: .bearer("first-secret-token")).status == 200)
        #expect(try connection.tmdb("/3/configuration", auth: .apiKey("second-secret-token")).status == 200)
        #expect(try connection.tmdb("/3/configuration", auth: .apiKey("second-secret-token")).status == 200)
        let raw = try connection.get("/__standin/stats")
        #expect(!raw.text.contains("secret"))
        let stats = try connection.standInStats().tmdb
        #expect(stats.unauthorized == 4)
        #expect(stats.byStatus == ["401": 4, "200": 3])
        #expect(stats.tokens.map(\.requests) == [1, 2])
        #expect(stats.tokens.map(\.fingerprint) == ["fi…(18)", "se…(19)"])
        #expect(server.stats().totalRequests == 0)
    }

    /// An unknown ID answers TMDb's 404 body.
    @Test func unknownIDsAnswerTMDbsNotFound() throws {
        try Self.withConnection { _, connection in
            let body =
                #"{"success":false,"status_code":34,"status_message":"The resource you requested could not be found."}"#
            for target in ["/3/movie/1", "/3/tv/1", "/3/movie/abc", "/3/tv/1/season/1", "/3/nothing/here"] {
                let response = try connection.tmdb(target)
                #expect(response.status == 404)
                #expect(response.text == body)
            }
            #expect(try connection.standInStats().tmdb.byStatus == ["404": 5])
            #expect(try connection.tmdb("/3/configuration", method: "POST").status == 405)
            #expect(try connection.standInStats().tmdb.requests == 5)
        }
    }

    /// `/configuration` points the image base URLs at the host the client named.
    @Test func configurationPointsImagesAtTheRequestsHost() throws {
        try Self.withConnection { _, connection in
            let response = try connection.tmdb("/3/configuration", host: "films.example:8080")
            let images = try #require(TMDbReference.object(response.body)["images"] as? [String: Any])
            #expect(images["base_url"] as? String == "http://films.example:8080/t/p/")
            #expect(images["secure_base_url"] as? String == "http://films.example:8080/t/p/")
            #expect((images["poster_sizes"] as? [String])?.contains("w500") == true)
            #expect((TMDbReference.object(response.body)["change_keys"] as? [String])?.contains("title") == true)
        }
    }

    /// A poster a body names is served under `/t/p/{size}/` without a token; other names are 404;
    /// served images are counted by size.
    @Test func imagesAreServedForTheNamesBodiesHandOut() throws {
        try Self.withConnection { _, connection in
            let film = try Self.listedFilm(.movie, on: connection)
            let details = try connection.tmdb("/3/movie/\(TMDbReference.tmdbID(film.imdbID))")
            let poster = try #require(TMDbReference.object(details.body)["backdrop_path"] as? String)
            let image = try connection.tmdb("/t/p/w780\(poster)", auth: .none)
            #expect(image.status == 200)
            #expect(image.headers["content-type"] == "image/jpeg")
            #expect(Array(image.body.prefix(3)) == [0xFF, 0xD8, 0xFF])
            #expect(try connection.tmdb("/t/p/w780\(poster)", auth: .none).body == image.body)
            let renamed = String(poster.dropLast(5)) + (poster.dropLast(4).last == "A" ? "B" : "A") + ".jpg"
            #expect(try connection.tmdb("/t/p/w780\(renamed)", auth: .none).status == 404)
            #expect(try connection.tmdb("/t/p/w999\(poster)", auth: .none).status == 404)
            let stats = try connection.standInStats().tmdb
            #expect(stats.imagesBySize == ["w780": 2])
            #expect(stats.byKind["image"] == 4)
            #expect(stats.byKind["movie"] == 1)
        }
    }

    /// `/search/multi` finds corpus titles by a substring in any case, movies and series alike.
    @Test func multiSearchFindsCorpusTitles() throws {
        try Self.withConnection { _, connection in
            let film = try Self.listedFilm(.movie, on: connection)
            let fragment = String(film.title.dropFirst(1).prefix(5)).uppercased()
            let response = try connection.tmdb(
                "/3/search/multi?query=\(fragment.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            #expect(response.status == 200)
            let object = TMDbReference.object(response.body)
            let results = TMDbReference.results(response.body)
            #expect(results.contains { $0["id"] as? Int == TMDbReference.tmdbID(film.imdbID) })
            #expect(results.allSatisfy { ["movie", "tv"].contains($0["media_type"] as? String ?? "") })
            #expect(object["total_results"] as? Int ?? 0 >= results.count)
            #expect(object["page"] as? Int == 1)
            let none = TMDbReference.object(try connection.tmdb("/3/search/multi?query=zzzzqqq").body)
            #expect(none["total_results"] as? Int == 0)
            #expect(try connection.tmdb("/3/search/multi?query=the&page=501").status == 400)
        }
    }

    /// Injected faults reach TMDb API requests; images are not faulted.
    @Test func faultsApplyToTMDbRequests() throws {
        try Self.withConnection(behaviour: StandInBehaviour(faultRate: 1, faults: [.internalServerError])) {
            server, connection in
            let response = try connection.tmdb("/3/configuration")
            #expect(response.status == 500)
            #expect(server.stats().faultsByKind == ["500": 1])
            #expect(try connection.standInStats().tmdb.byStatus == ["500": 1])
        }
    }

    /// `POST /__standin/reset` zeroes the TMDb counters too.
    @Test func resetZeroesTheTMDbCounters() throws {
        try Self.withConnection { server, connection in
            _ = try connection.tmdb("/3/configuration")
            _ = try connection.tmdb("/3/find/tt0000001?external_source=imdb_id")
            #expect(server.stats().tmdb.requests == 2)
            #expect(server.stats().tmdb.findFetches == ["tt0000001": 1])
            #expect(try connection.get("/__standin/reset", method: "POST").status == 200)
            #expect(server.stats().tmdb.requests == 0)
            #expect(server.stats().tmdb.findFetches.isEmpty)
            #expect(server.stats().tmdb.tokens.map(\.requests) == [0])
        }
    }
}
