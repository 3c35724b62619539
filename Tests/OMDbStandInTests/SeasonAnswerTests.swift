import Foundation
import OMDbStandIn
import Testing

/// `Season=` episode lists and `Season=&Episode=` episodes, built from the corpus's episode films.
@Suite struct SeasonAnswerTests {
    /// The 300 films of seed 1 (`Data/corpus`).
    static let films = SearchAnswerTests.films
    /// `films` as a corpus.
    static let corpus = SearchAnswerTests.corpus
    /// Films by ID.
    static let byID = Dictionary(uniqueKeysWithValues: films.map { ($0.imdbID, $0) })
    /// Every series of the sample with its seasons, as the reference works them out.
    static let seriesSeasons = films.filter { $0.kind == .series }.map { series in
        (series: series, seasons: OMDbReference.seasons(of: series.imdbID, in: films))
    }

    /// The generated sample has series whose episodes point at them, some seasons with several.
    @Test func theSampleHasSeriesWithSeasonsOfEpisodes() {
        let listed = Self.seriesSeasons.filter { !$0.seasons.isEmpty }
        #expect(listed.count >= 10)
        #expect(listed.contains { $0.seasons.values.contains { $0.count >= 3 } })
    }

    /// Every season of every series lists its episodes by number with OMDb's fields; `t=` answers as `i=`.
    @Test func everySeasonListsItsEpisodesByNumber() throws {
        try StandInHarness.withServer(corpus: Self.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            var lists = 0
            for (series, seasons) in Self.seriesSeasons {
                let seriesFields = OMDbReference.fields(series.body)
                for (season, episodes) in seasons {
                    let response = try connection.get("/?apikey=demo&i=\(series.imdbID)&Season=\(season)")
                    let object = OMDbReference.object(response.body)
                    #expect(
                        CorpusGeneratorTests.topLevelKeys(response.text)
                            == ["Title", "Season", "totalSeasons", "Episodes", "Response"])
                    #expect(object["Title"] as? String == series.title)
                    #expect(object["Season"] as? String == String(season))
                    #expect(object["totalSeasons"] as? String == seriesFields["totalSeasons"])
                    #expect(object["Response"] as? String == "True")
                    let listed = try #require(object["Episodes"] as? [[String: String]])
                    let expected = episodes.map { number, film in
                        let fields = OMDbReference.fields(film.body)
                        return [
                            "Title": film.title, "Released": OMDbReference.isoDate(fields["Released"] ?? ""),
                            "Episode": String(number), "imdbRating": fields["imdbRating"] ?? "", "imdbID": film.imdbID,
                        ]
                    }
                    #expect(listed == expected, "\(series.imdbID) season \(season)")
                    let byTitle = try connection.get(
                        "/?apikey=demo&t=\(SearchAnswerTests.escaped(series.title))&Season=\(season)")
                    let firstSeriesTitled = Self.films.filter {
                        $0.kind == .series && $0.title.lowercased() == series.title.lowercased()
                    }.map(\.imdbID).min()
                    if firstSeriesTitled == series.imdbID {
                        #expect(byTitle.body == response.body, "\(series.title)")
                    }
                    lists += OMDbReference.object(byTitle.body)["Episodes"] == nil ? 1 : 2
                }
            }
            #expect(lists >= 20)
            #expect(server.counters(forKey: "demo")?.seasons == lists)
        }
    }

    /// A season list is OMDb's body byte for byte, dates rewritten as `YYYY-MM-DD`.
    @Test func aSeasonListIsOMDbsBodyByteForByte() throws {
        let corpus = OMDbReference.corpus([
            [
                ("Title", "Silent Tide"), ("Year", "2011–2019"), ("imdbID", "tt0000100"), ("Type", "series"),
                ("totalSeasons", "3"),
            ],
            [
                ("Title", "Pilot"), ("Year", "2011"), ("Released", "02 Mar 2011"), ("Season", "1"), ("Episode", "1"),
                ("imdbRating", "7.9"), ("imdbID", "tt0000103"), ("seriesID", "tt0000100"), ("Type", "episode"),
            ],
            [
                ("Title", "Ghosts \"Again\""), ("Year", "2011"), ("Released", "N/A"), ("Season", "1"),
                ("Episode", "10"),
                ("imdbRating", "N/A"), ("imdbID", "tt0000101"), ("seriesID", "tt0000100"), ("Type", "episode"),
            ],
            [
                ("Title", "Ghosts"), ("Year", "2011"), ("Released", "16 Oct 2011"), ("Season", "1"), ("Episode", "2"),
                ("imdbRating", "8.1"), ("imdbID", "tt0000102"), ("seriesID", "tt0000100"), ("Type", "episode"),
            ],
            [
                ("Title", "Later"), ("Year", "2013"), ("Released", "1 Jan 2013"), ("Season", "2"), ("Episode", "1"),
                ("imdbRating", "6.0"), ("imdbID", "tt0000104"), ("seriesID", "tt0000100"), ("Type", "episode"),
            ],
        ])
        try StandInHarness.withServer(corpus: corpus) { _, port in
            let connection = try RawHTTPConnection(port: port)
            let first = try connection.get("/?apikey=demo&i=tt0000100&Season=1")
            #expect(first.status == 200)
            #expect(first.headers["content-type"] == "application/json; charset=utf-8")
            #expect(
                first.text
                    == #"{"Title":"Silent Tide","Season":"1","totalSeasons":"3","Episodes":["#
                    + #"{"Title":"Pilot","Released":"2011-03-02","Episode":"1","imdbRating":"7.9","imdbID":"tt0000103"},"#
                    + #"{"Title":"Ghosts","Released":"2011-10-16","Episode":"2","imdbRating":"8.1","imdbID":"tt0000102"},"#
                    + #"{"Title":"Ghosts \"Again\"","Released":"N/A","Episode":"10","imdbRating":"N/A","imdbID":"tt0000101"}"#
                    + #"],"Response":"True"}"#)
            #expect(try connection.get("/?apikey=demo&t=SILENT+tide&season=01").body == first.body)
            #expect(
                try connection.get("/?apikey=demo&i=tt0000100&Season=2").text
                    == #"{"Title":"Silent Tide","Season":"2","totalSeasons":"3","Episodes":["#
                    + #"{"Title":"Later","Released":"2013-01-01","Episode":"1","imdbRating":"6.0","imdbID":"tt0000104"}"#
                    + #"],"Response":"True"}"#)
        }
    }

    /// Unknown series, films that are not series, and seasons without episodes are `Series or season not found!`
    @Test func missingSeriesOrSeasonIsSeriesOrSeasonNotFound() throws {
        let (series, seasons) = try #require(Self.seriesSeasons.first { !$0.seasons.isEmpty })
        let emptySeason = try #require((1...99).first { seasons[$0] == nil })
        let movie = try #require(Self.films.first { $0.kind == .movie })
        let episode = try #require(Self.films.first { $0.kind == .episode })
        let outside = try #require(
            Self.films.compactMap { OMDbReference.fields($0.body)["seriesID"] }.first { Self.byID[$0] == nil })
        let targets = [
            "i=tt0000001&Season=1", "i=\(movie.imdbID)&Season=1", "i=\(episode.imdbID)&Season=1",
            "i=\(outside)&Season=1", "i=\(series.imdbID)&Season=\(emptySeason)", "i=\(series.imdbID)&Season=x",
            "i=\(series.imdbID)&Season=0", "i=\(series.imdbID)&Season=-1", "i=&Season=1",
            "t=No+Such+Series&Season=1", "t=\(SearchAnswerTests.escaped(movie.title))&type=movie&Season=1",
        ]
        try StandInHarness.withServer(corpus: Self.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            for target in targets {
                let response = try connection.get("/?apikey=demo&\(target)")
                #expect(response.status == 200)
                #expect(response.text == #"{"Response":"False","Error":"Series or season not found!"}"#, "\(target)")
            }
            #expect(server.counters(forKey: "demo")?.notFound == targets.count)
        }
    }

    /// `Season=&Episode=` answers with the episode's corpus body, byte for byte.
    @Test func seasonAndEpisodeAnswerWithTheEpisodesBody() throws {
        try StandInHarness.withServer(corpus: Self.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            var served = 0
            for (series, seasons) in Self.seriesSeasons {
                for (season, episodes) in seasons {
                    for (number, film) in episodes {
                        let response = try connection.get(
                            "/?apikey=demo&i=\(series.imdbID)&Season=\(season)&Episode=\(number)")
                        #expect(response.status == 200)
                        #expect(response.body == film.body, "\(series.imdbID) S\(season)E\(number)")
                        served += 1
                    }
                }
            }
            #expect(served >= 20)
            let counters = try #require(server.counters(forKey: "demo"))
            #expect(counters.films == served)
            #expect(counters.filmsServedAgain == 0)
            #expect(counters.seasons == 0)
        }
    }

    /// Two episodes claiming one number: the lower ID is listed and served, the other never.
    @Test func theLowerIDKeepsANumberTwoEpisodesClaim() throws {
        let corpus = OMDbReference.corpus([
            [("Title", "Echo"), ("Year", "2001–"), ("imdbID", "tt0000200"), ("Type", "series"), ("totalSeasons", "1")],
            [
                ("Title", "Second"), ("Season", "1"), ("Episode", "4"), ("imdbID", "tt0000209"),
                ("seriesID", "tt0000200"),
                ("Type", "episode"),
            ],
            [
                ("Title", "First"), ("Season", "1"), ("Episode", "4"), ("imdbID", "tt0000201"),
                ("seriesID", "tt0000200"),
                ("Type", "episode"),
            ],
        ])
        try StandInHarness.withServer(corpus: corpus) { _, port in
            let connection = try RawHTTPConnection(port: port)
            let list = OMDbReference.object(try connection.get("/?apikey=demo&i=tt0000200&Season=1").body)
            #expect((list["Episodes"] as? [[String: String]])?.map { $0["imdbID"] ?? "" } == ["tt0000201"])
            let episode = try connection.get("/?apikey=demo&i=tt0000200&Season=1&Episode=4")
            #expect(episode.body == corpus.body(forID: "tt0000201"))
        }
    }

    /// Episodes that do not exist are `Series or episode not found!`
    @Test func missingEpisodeIsSeriesOrEpisodeNotFound() throws {
        let (series, seasons) = try #require(Self.seriesSeasons.first { !$0.seasons.isEmpty })
        let (season, episodes) = try #require(seasons.first)
        let absent = try #require((1...99).first { number in !episodes.contains { $0.number == number } })
        let movie = try #require(Self.films.first { $0.kind == .movie })
        let targets = [
            "i=\(series.imdbID)&Season=\(season)&Episode=\(absent)", "i=\(series.imdbID)&Season=\(season)&Episode=x",
            "i=\(series.imdbID)&Season=99&Episode=1", "i=\(movie.imdbID)&Season=1&Episode=1",
            "i=tt0000001&Season=\(season)&Episode=\(episodes[0].number)", "t=No+Such+Series&Season=1&Episode=1",
        ]
        try StandInHarness.withServer(corpus: Self.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            for target in targets {
                #expect(
                    try connection.get("/?apikey=demo&\(target)").text
                        == #"{"Response":"False","Error":"Series or episode not found!"}"#, "\(target)")
            }
            #expect(server.counters(forKey: "demo")?.notFound == targets.count)
        }
    }

    /// A loaded corpus directory answers seasons and episodes exactly as the generated corpus.
    @Test func loadedCorpusAnswersSeasonsAsTheGeneratedOne() throws {
        let targets = Self.seriesSeasons.flatMap { series, seasons in
            seasons.flatMap { season, episodes in
                ["i=\(series.imdbID)&Season=\(season)"]
                    + episodes.map { "i=\(series.imdbID)&Season=\(season)&Episode=\($0.number)" }
            }
        }
        #expect(targets.count >= 30)
        let generated = try StandInHarness.answers(to: targets, corpus: Self.corpus)
        let loaded = try StandInHarness.answers(to: targets, corpus: StandInHarness.loadedCorpus(count: 300, seed: 1))
        for (target, (one, other)) in zip(targets, zip(generated, loaded)) {
            #expect(one == other, "\(target)")
        }
    }
}
