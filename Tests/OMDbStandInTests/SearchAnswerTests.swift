import Foundation
import OMDbStandIn
import Testing

/// `s=` searches: matching, filters, pages and OMDb's words for misses.
@Suite struct SearchAnswerTests {
    /// The 300 films of seed 1 (`Data/corpus`).
    static let films = CorpusGenerator(seed: 1).films(count: 300)
    /// `films` as a corpus.
    static let corpus = FilmCorpus(films: films)

    /// Every page of `s=text` (with `extra` query parameters), requested until OMDb's miss.
    static func allPages(_ text: String, extra: String = "", port: Int) throws -> (
        entries: [[String: String]], totals: Set<String>, pages: Int
    ) {
        let connection = try RawHTTPConnection(port: port)
        var entries: [[String: String]] = []
        var totals: Set<String> = []
        var page = 1
        while page <= 100 {
            let response = try connection.get("/?apikey=demo&s=\(escaped(text))\(extra)&page=\(page)")
            let object = OMDbReference.object(response.body)
            guard object["Response"] as? String == "True" else {
                #expect(response.text == #"{"Response":"False","Error":"Movie not found!"}"#)
                break
            }
            let list = try #require(object["Search"] as? [[String: String]])
            #expect((1...10).contains(list.count))
            entries += list
            totals.insert(object["totalResults"] as? String ?? "")
            page += 1
        }
        return (entries, totals, page - 1)
    }

    /// `text` for a query string.
    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// Every page together lists exactly the films whose titles hold the words, in ID order.
    @Test(arguments: [
        "harbor", "HARBOR", "the", "silent tide", "The Silent", "Of The", "kingdom: iron", "reckoning", "bjorn",
        "LAGOR I NATTEN", "ζωη", "東京の夜明け",
    ])
    func pagesListTheFilmsWhoseTitlesHoldTheWordsInIDOrder(text: String) throws {
        let expected = OMDbReference.searchIDs(text, in: Self.films)
        try #require(!expected.isEmpty, "the sample must find something for '\(text)'")
        try StandInHarness.withServer(corpus: Self.corpus) { _, port in
            let found = try Self.allPages(text, port: port)
            #expect(found.entries.map { $0["imdbID"] ?? "" } == expected)
            #expect(found.totals == [String(expected.count)])
            #expect(found.pages == (expected.count + 9) / 10)
            let byID = Dictionary(uniqueKeysWithValues: Self.films.map { ($0.imdbID, $0) })
            for entry in found.entries {
                #expect(entry == byID[entry["imdbID"] ?? ""].map(OMDbReference.searchEntry))
            }
        }
    }

    /// A page is OMDb's body byte for byte: key order, compact, `/` unescaped, UTF-8 raw.
    @Test func aPageIsOMDbsBodyByteForByte() throws {
        let expected = OMDbReference.searchIDs("harbor", in: Self.films)
        let byID = Dictionary(uniqueKeysWithValues: Self.films.map { ($0.imdbID, $0) })
        let entries = expected.prefix(10).compactMap { byID[$0] }.map { film in
            let entry = OMDbReference.searchEntry(film)
            return OMDbReference.object(["Title", "Year", "imdbID", "Type", "Poster"].map { ($0, entry[$0] ?? "") })
        }
        let body =
            #"{"Search":["# + entries.joined(separator: ",") + #"],"totalResults":""#
            + "\(expected.count)" + #"","Response":"True"}"#
        try StandInHarness.withServer(corpus: Self.corpus) { _, port in
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo&s=harbor")
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json; charset=utf-8")
            #expect(response.text == body)
        }
    }

    /// `type=` and `y=` narrow the matches the way they narrow `t=`.
    @Test func typeAndYearNarrowTheMatches() throws {
        try StandInHarness.withServer(corpus: Self.corpus) { _, port in
            for type in ["movie", "series", "episode"] {
                let expected = OMDbReference.searchIDs("the", in: Self.films, type: type)
                let found = try Self.allPages("the", extra: "&type=\(type)", port: port)
                #expect(found.entries.map { $0["imdbID"] ?? "" } == expected, "\(type)")
                #expect(found.entries.allSatisfy { $0["Type"] == type })
            }
            let year = try #require(Self.films.first { OMDbReference.spacedWords($0.title).contains(" of ") }?.year)
            let startYear = String(year.prefix(4))
            let expected = OMDbReference.searchIDs("of", in: Self.films, year: startYear)
            let found = try Self.allPages("of", extra: "&y=\(startYear)", port: port)
            #expect(!expected.isEmpty)
            #expect(found.entries.map { $0["imdbID"] ?? "" } == expected)
            let none = try RawHTTPConnection(port: port).get("/?apikey=demo&s=harbor&type=game")
            #expect(none.text == #"{"Response":"False","Error":"Movie not found!"}"#)
        }
    }

    /// Only whole words in their order match; accents and case never matter.
    @Test func onlyWholeWordsInOrderMatchIgnoringAccentsAndCase() throws {
        let corpus = OMDbReference.corpus([
            [("Title", "Amélie des Étoiles"), ("Year", "2001"), ("imdbID", "tt0000001"), ("Type", "movie")],
            [("Title", "The Silent Harbor"), ("Year", "1999"), ("imdbID", "tt0000002"), ("Type", "movie")],
            [("Title", "Alice's Harbor: Part 2"), ("Year", "2004"), ("imdbID", "tt0000003"), ("Type", "series")],
        ])
        let cases: [(String, [String])] = [
            ("amelie", ["tt0000001"]), ("AMÉLIE DES etoiles", ["tt0000001"]), ("des étoiles", ["tt0000001"]),
            ("harbor", ["tt0000002", "tt0000003"]), ("silent harbor", ["tt0000002"]), ("harbor silent", []),
            ("harb", []), ("alice's", ["tt0000003"]), ("alice s harbor part", ["tt0000003"]),
            ("harbor part 2", ["tt0000003"]), ("  the   SILENT  ", ["tt0000002"]), ("!!", []),
        ]
        try StandInHarness.withServer(corpus: corpus) { _, port in
            let connection = try RawHTTPConnection(port: port)
            for (text, ids) in cases {
                let response = try connection.get("/?apikey=demo&s=\(Self.escaped(text))")
                let list = OMDbReference.object(response.body)["Search"] as? [[String: String]] ?? []
                #expect(list.map { $0["imdbID"] ?? "" } == ids, "\(text)")
                if ids.isEmpty {
                    #expect(response.text == #"{"Response":"False","Error":"Movie not found!"}"#, "\(text)")
                }
            }
        }
    }

    /// A poster-less film is listed with `N/A`; a hand-made body without `Type` lists an empty one.
    @Test func missingPosterIsNA() throws {
        let corpus = OMDbReference.corpus([
            [("Title", "Lonely Tide"), ("Year", "1988"), ("imdbID", "tt0000009"), ("Type", "movie")],
            [
                ("Title", "Lonely Tide"), ("Year", "1990"), ("imdbID", "tt0000010"), ("Type", "movie"),
                ("Poster", "https://m.media-amazon.com/images/M/MV5Bx@@._V1_SX300.jpg"),
            ],
        ])
        try StandInHarness.withServer(corpus: corpus) { _, port in
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo&s=lonely+tide")
            #expect(
                response.text
                    == #"{"Search":[{"Title":"Lonely Tide","Year":"1988","imdbID":"tt0000009","Type":"movie","Poster":"N/A"},"#
                    + #"{"Title":"Lonely Tide","Year":"1990","imdbID":"tt0000010","Type":"movie","#
                    + #""Poster":"https://m.media-amazon.com/images/M/MV5Bx@@._V1_SX300.jpg"}],"totalResults":"2","Response":"True"}"#
            )
        }
    }

    /// Page 1 is the default; a page past the last is `Movie not found!`; pages outside 1...100 and
    /// non-numbers get OMDb's `OFFSET` error.
    @Test func pagesAreOneBasedAndBounded() throws {
        let count = OMDbReference.searchIDs("the", in: Self.films).count
        let last = (count + 9) / 10
        try #require(last >= 2)
        try StandInHarness.withServer(corpus: Self.corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            let first = try connection.get("/?apikey=demo&s=the")
            #expect(try connection.get("/?apikey=demo&s=the&page=1").body == first.body)
            #expect(try connection.get("/?apikey=demo&s=the&page=").body == first.body)
            #expect(try connection.get("/?apikey=demo&s=the&page=2").body != first.body)
            let lastPage = OMDbReference.object(try connection.get("/?apikey=demo&s=the&page=\(last)").body)
            #expect((lastPage["Search"] as? [Any])?.count == count - (last - 1) * 10)
            for page in [last + 1, 100] {
                #expect(
                    try connection.get("/?apikey=demo&s=the&page=\(page)").text
                        == #"{"Response":"False","Error":"Movie not found!"}"#)
            }
            for page in ["0", "-1", "101", "abc", "1.5"] {
                #expect(
                    try connection.get("/?apikey=demo&s=the&page=\(page)").text
                        == #"{"Response":"False","Error":"The offset specified in a OFFSET clause may not be negative."}"#,
                    "page \(page)")
            }
            let counters = try #require(server.counters(forKey: "demo"))
            #expect(counters.searches == 5)
            #expect(counters.notFound == 2)
            #expect(counters.badRequests == 5)
            #expect(counters.films == 0)
        }
    }

    /// A search of one or two letters that matches more than a page gets `Too many results.`; one
    /// that matches a page or less is listed, and three letters are never too many.
    @Test func veryShortSearchesMatchingManyAreTooMany() throws {
        func films(_ title: String, _ count: Int, from first: Int) -> [[(String, String)]] {
            (0..<count).map { index in
                [
                    ("Title", title), ("Year", "2000"), ("imdbID", String(format: "tt%07d", first + index)),
                    ("Type", "movie"),
                ]
            }
        }
        let corpus = OMDbReference.corpus(
            films("Up", 11, from: 1) + films("Go", 10, from: 100) + films("Zoo", 30, from: 200))
        try StandInHarness.withServer(corpus: corpus) { server, port in
            let connection = try RawHTTPConnection(port: port)
            for text in ["up", "UP"] {
                #expect(
                    try connection.get("/?apikey=demo&s=\(text)").text
                        == #"{"Response":"False","Error":"Too many results."}"#, "\(text)")
            }
            #expect(
                try connection.get("/?apikey=demo&s=up&type=series").text
                    == #"{"Response":"False","Error":"Movie not found!"}"#)
            let go = OMDbReference.object(try connection.get("/?apikey=demo&s=go").body)
            #expect(go["totalResults"] as? String == "10")
            let zoo = OMDbReference.object(try connection.get("/?apikey=demo&s=zoo&page=3").body)
            #expect(zoo["totalResults"] as? String == "30")
            #expect((zoo["Search"] as? [Any])?.count == 10)
            #expect(server.counters(forKey: "demo")?.notFound == 3)
        }
    }

    /// An empty `s=` names no film: `Something went wrong.`, like a request with nothing.
    @Test func emptySearchIsSomethingWentWrong() throws {
        try StandInHarness.withServer(corpus: Self.corpus) { server, port in
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo&s=")
            #expect(response.text == #"{"Response":"False","Error":"Something went wrong."}"#)
            #expect(server.counters(forKey: "demo")?.badRequests == 1)
        }
    }

    /// A loaded corpus directory answers searches exactly as the generated corpus it was written from.
    @Test func loadedCorpusSearchesAsTheGeneratedOne() throws {
        let targets = ["s=the&page=3", "s=harbor&type=series", "s=of&y=2019", "s=reckoning", "s=episode"]
        let generated = try StandInHarness.answers(to: targets, corpus: Self.corpus)
        let loaded = try StandInHarness.answers(to: targets, corpus: StandInHarness.loadedCorpus(count: 300, seed: 1))
        for (target, (one, other)) in zip(targets, zip(generated, loaded)) {
            #expect(one == other, "\(target)")
        }
    }

    /// With posters served, every `Poster` of a page points at the stand-in.
    @Test func everyPosterOfAPagePointsAtTheStandInWhenPostersAreServed() throws {
        try StandInHarness.withServer(corpus: Self.corpus, behaviour: StandInBehaviour(servePosters: true)) {
            _, port in
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo&s=the")
            let list = try #require(OMDbReference.object(response.body)["Search"] as? [[String: String]])
            let posters = list.compactMap { $0["Poster"] }.filter { $0 != "N/A" }
            #expect(posters.count >= 5)
            #expect(posters.allSatisfy { $0.hasPrefix("http://127.0.0.1/posters/") })
        }
    }
}
