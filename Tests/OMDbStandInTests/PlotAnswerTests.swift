import Foundation
import OMDbStandIn
import Testing

/// `plot=full` lengthens the `Plot`; `plot=short` and no `plot` leave the stored body untouched.
@Suite struct PlotAnswerTests {
    /// `plot=short`, `plot=SHORT`, an empty `plot` and none at all serve the stored body byte for byte.
    @Test func shortOrAbsentPlotServesTheStoredBody() throws {
        try StandInHarness.withServer { _, port in
            let connection = try RawHTTPConnection(port: port)
            for film in StandInHarness.films {
                for plot in ["", "&plot=short", "&plot=SHORT", "&plot="] {
                    #expect(try connection.get("/?apikey=demo&i=\(film.imdbID)\(plot)").body == film.body)
                }
            }
        }
    }

    /// The full form keeps every byte but the `Plot` value, which the short plot opens and more sentences follow.
    @Test func fullPlotOnlyLengthensThePlot() throws {
        try StandInHarness.withServer { _, port in
            let connection = try RawHTTPConnection(port: port)
            var lengthened = 0
            for film in StandInHarness.films {
                let full = try connection.get("/?apikey=demo&i=\(film.imdbID)&plot=full")
                #expect(full.status == 200)
                var short = OMDbReference.fields(film.body)
                var long = OMDbReference.fields(full.body)
                #expect(CorpusGeneratorTests.topLevelKeys(full.text) == CorpusGeneratorTests.topLevelKeys(film.json))
                let shortPlot = short.removeValue(forKey: "Plot") ?? ""
                let longPlot = long.removeValue(forKey: "Plot") ?? ""
                #expect(long == short, "\(film.imdbID)")
                if shortPlot == "N/A" {
                    #expect(full.body == film.body)
                    continue
                }
                #expect(longPlot.hasPrefix(shortPlot + " "))
                #expect(longPlot.count >= shortPlot.count + 60)
                let prefix = film.json.components(separatedBy: #""Plot":""#)[0]
                #expect(full.text.hasPrefix(prefix + #""Plot":""#))
                lengthened += 1
            }
            #expect(lengthened >= StandInHarness.films.count / 2)
        }
    }

    /// The full form is the same on every call and every server, and the same through `t=`, `Season=&Episode=` and `i=`.
    @Test func fullPlotIsDeterministicAcrossForms() throws {
        let film = try #require(
            StandInHarness.films.first { $0.kind == .movie && OMDbReference.fields($0.body)["Plot"] != "N/A" })
        let title = SearchAnswerTests.escaped(film.title)
        let one = try StandInHarness.withServer { _, port in
            let connection = try RawHTTPConnection(port: port)
            let first = try connection.get("/?apikey=demo&i=\(film.imdbID)&plot=full").body
            #expect(try connection.get("/?apikey=demo&plot=Full&i=\(film.imdbID)").body == first)
            #expect(try connection.get("/?apikey=demo&t=\(title)&plot=full").body == first)
            return first
        }
        let two = try StandInHarness.withServer { _, port in
            try RawHTTPConnection(port: port).get("/?apikey=demo&i=\(film.imdbID)&plot=full").body
        }
        #expect(one == two)
        #expect(one != film.body)
    }

    /// An episode fetched by series, season and number with `plot=full` is the same full body as by its ID.
    @Test func fullPlotOfAnEpisodeBySeasonEqualsItByID() throws {
        let (series, seasons) = try #require(SeasonAnswerTests.seriesSeasons.first { !$0.seasons.isEmpty })
        let (season, episodes) = try #require(seasons.first)
        let episode = episodes[0]
        try StandInHarness.withServer(corpus: SearchAnswerTests.corpus) { _, port in
            let connection = try RawHTTPConnection(port: port)
            let byID = try connection.get("/?apikey=demo&i=\(episode.film.imdbID)&plot=full")
            let bySeason = try connection.get(
                "/?apikey=demo&i=\(series.imdbID)&Season=\(season)&Episode=\(episode.number)&plot=full")
            #expect(bySeason.body == byID.body)
        }
    }

    /// A pretty-printed body on disk gets its full plot too, escapes and layout kept.
    @Test func aPrettyPrintedBodyGetsItsFullPlot() throws {
        let directory = try StandInHarness.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body =
            "{\n  \"Title\" : \"Paper Tide\",\n  \"Plot\" : \"She says \\\"no\\\".\",\n  \"imdbID\" : \"tt0000300\",\n  \"Response\" : \"True\"\n}\n"
        try Data(body.utf8).write(to: directory.appendingPathComponent("tt0000300.json"))
        try StandInHarness.withServer(corpus: try FilmCorpus(directory: directory)) { _, port in
            let connection = try RawHTTPConnection(port: port)
            #expect(try connection.get("/?apikey=demo&i=tt0000300").text == body)
            let full = try connection.get("/?apikey=demo&i=tt0000300&plot=full").text
            #expect(full.hasPrefix("{\n  \"Title\" : \"Paper Tide\",\n  \"Plot\" : \"She says \\\"no\\\". "))
            #expect(full.hasSuffix("\",\n  \"imdbID\" : \"tt0000300\",\n  \"Response\" : \"True\"\n}\n"))
            #expect(OMDbReference.fields(Array(full.utf8))["Plot"]?.hasPrefix("She says \"no\". ") == true)
        }
    }

    /// A repeated full-plot `i=` counts as served again; the short and full forms of one ID do not.
    @Test func servedAgainTellsTheFullFormFromTheShort() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer { server, port in
            let connection = try RawHTTPConnection(port: port)
            for plot in ["", "&plot=full", "&plot=short", "&plot=full"] {
                #expect(try connection.get("/?apikey=demo&i=\(film.imdbID)\(plot)").status == 200)
            }
            #expect(server.counters(forKey: "demo")?.films == 4)
            #expect(server.counters(forKey: "demo")?.filmsServedAgain == 2)
        }
    }
}
