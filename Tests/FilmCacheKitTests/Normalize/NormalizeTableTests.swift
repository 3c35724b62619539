import FilmCacheKit
import Foundation
import Testing

/// One OMDb body and the exact film (and warning fields) it must normalize to.
struct NormalizeCase: Sendable, CustomTestStringConvertible {
    let name: String
    let body: String
    let imdbID: String
    /// Applied to a film with only identity set; the result must equal the normalized film.
    let expected: @Sendable (inout IMDBFilm) -> Void
    /// OMDb keys that must be named by warnings, in order.
    let warnings: [String]

    init(
        _ name: String, _ body: String, id: String = "tt0172495", warnings: [String] = [],
        _ expected: @escaping @Sendable (inout IMDBFilm) -> Void
    ) {
        self.name = name
        self.body = body
        self.imdbID = id
        self.warnings = warnings
        self.expected = expected
    }

    var testDescription: String { name }

    static let fetchedAt = Date(timeIntervalSince1970: 1_700_000_000)

    /// The expected film for this case.
    func expectedFilm() -> IMDBFilm {
        var film = IMDBFilm(
            imdbID: imdbID, lastFetched: Self.fetchedAt, dataVersion: FilmNormalizer.dataVersion, rawJSON: body)
        expected(&film)
        return film
    }
}

/// Gladiator's fields, reused by the cases that change one of them.
@Sendable func gladiatorFields(_ f: inout IMDBFilm) {
    f.title = "Gladiator"
    f.type = .movie
    f.yearStart = 2000
    f.rated = "R"
    f.released = CalendarDate(year: 2000, month: 5, day: 5)
    f.runtimeMinutes = 155
    f.genres = ["Action", "Adventure", "Drama"]
    f.directors = ["Ridley Scott"]
    f.writers = [
        Credit(name: "David Franzoni", role: "story"), Credit(name: "David Franzoni", role: "screenplay"),
        Credit(name: "John Logan", role: "screenplay"), Credit(name: "William Nicholson", role: "screenplay"),
    ]
    f.actors = ["Russell Crowe", "Joaquin Phoenix", "Connie Nielsen"]
    f.languages = ["English"]
    f.countries = ["United States", "United Kingdom", "Malta", "Morocco"]
    f.plot =
        "A former Roman General sets out to exact vengeance against the corrupt emperor who murdered his family and sent him into slavery."
    f.awards = "Won 5 Oscars. 60 wins & 106 nominations total"
    f.posterURL =
        "https://m.media-amazon.com/images/M/MV5BMDliMmNhNDEtODUyOS00MjNlLTgxODEtN2U3NzIxMGVkZTA1L2ltYWdlXkEyXkFqcGdeQXVyNjU0OTQ0OTY@._V1_SX300.jpg"
    f.imdbRating = 8.5
    f.imdbVotes = 1_603_120
    f.metascore = 67
    f.ratings = [
        Rating(source: .imdb, value: "8.5/10", score: 85), Rating(source: .rottenTomatoes, value: "80%", score: 80),
        Rating(source: .metacritic, value: "67/100", score: 67),
    ]
    f.boxOfficeUSD = 187_705_427
    f.dvd = CalendarDate(year: 2000, month: 11, day: 21)
}

/// Game of Thrones' fields.
@Sendable func finishedSeriesFields(_ f: inout IMDBFilm) {
    f.title = "Game of Thrones"
    f.type = .series
    f.yearStart = 2011
    f.yearEnd = 2019
    f.rated = "TV-MA"
    f.released = CalendarDate(year: 2011, month: 4, day: 17)
    f.runtimeMinutes = 57
    f.genres = ["Action", "Adventure", "Drama"]
    f.writers = [Credit(name: "David Benioff"), Credit(name: "D.B. Weiss")]
    f.actors = ["Emilia Clarke", "Peter Dinklage", "Kit Harington"]
    f.languages = ["English"]
    f.countries = ["United States", "United Kingdom"]
    f.plot = "Nine noble families fight for control over the lands of Westeros."
    f.awards = "Won 59 Primetime Emmys. 391 wins & 656 nominations total"
    f.posterURL = "https://m.media-amazon.com/images/M/got.jpg"
    f.imdbRating = 9.2
    f.imdbVotes = 2_301_119
    f.ratings = [Rating(source: .imdb, value: "9.2/10", score: 92)]
    f.totalSeasons = 8
}

private let cases: [NormalizeCase] = [
    NormalizeCase("movie with three ratings and box office", OMDbSamples.gladiator, gladiatorFields),
    NormalizeCase("series still running", OMDbSamples.openSeries, id: "tt0096697") { f in
        f.title = "The Simpsons"
        f.type = .series
        f.yearStart = 1989
        f.rated = "TV-PG"
        f.released = CalendarDate(year: 1989, month: 12, day: 17)
        f.runtimeMinutes = 22
        f.genres = ["Animation", "Comedy"]
        f.writers = [Credit(name: "James L. Brooks"), Credit(name: "Matt Groening"), Credit(name: "Sam Simon")]
        f.actors = ["Dan Castellaneta", "Nancy Cartwright", "Harry Shearer"]
        f.languages = ["English", "Spanish"]
        f.countries = ["United States"]
        f.plot = "The satiric adventures of a working-class family."
        f.awards = "Won 37 Primetime Emmys. 197 wins & 339 nominations total"
        f.posterURL = "https://m.media-amazon.com/images/M/simpsons.jpg"
        f.imdbRating = 8.7
        f.imdbVotes = 435_201
        f.ratings = [Rating(source: .imdb, value: "8.7/10", score: 87)]
        f.totalSeasons = 36
    },
    NormalizeCase("finished series", OMDbSamples.finishedSeries, id: "tt0944947", finishedSeriesFields),
    NormalizeCase("episode", OMDbSamples.episode, id: "tt1480055") { f in
        f.title = "Winter Is Coming"
        f.type = .episode
        f.yearStart = 2011
        f.rated = "TV-MA"
        f.released = CalendarDate(year: 2011, month: 4, day: 17)
        f.season = 1
        f.episode = 1
        f.runtimeMinutes = 62
        f.genres = ["Action", "Adventure", "Drama"]
        f.directors = ["Tim Van Patten"]
        f.writers = [Credit(name: "David Benioff"), Credit(name: "D.B. Weiss"), Credit(name: "George R.R. Martin")]
        f.actors = ["Sean Bean", "Mark Addy", "Nikolaj Coster-Waldau"]
        f.plot = "Eddard Stark is torn between his family and an old friend."
        f.languages = ["English"]
        f.countries = ["United States"]
        f.posterURL = "https://m.media-amazon.com/images/M/wic.jpg"
        f.ratings = [Rating(source: .imdb, value: "8.9/10", score: 89)]
        f.imdbRating = 8.9
        f.imdbVotes = 52_341
        f.seriesID = "tt0944947"
    },
    NormalizeCase("N/A almost everywhere", OMDbSamples.almostEmpty, id: "tt0000001") { f in
        f.title = "Untitled Short"
        f.yearStart = 1912
        f.type = .movie
    },
    NormalizeCase("old runtime with hours", OMDbSamples.gladiator(replacing: "155 min", with: "1 h 50 min")) { f in
        gladiatorFields(&f)
        f.runtimeMinutes = 110
    },
    NormalizeCase("runtime in whole hours", OMDbSamples.gladiator(replacing: "155 min", with: "2 h")) { f in
        gladiatorFields(&f)
        f.runtimeMinutes = 120
    },
    NormalizeCase(
        "series range with a hyphen",
        OMDbSamples.finishedSeries.replacingOccurrences(of: "2011–2019", with: "2011-2019"), id: "tt0944947",
        finishedSeriesFields
    ),
    NormalizeCase(
        "numeric Metascore", OMDbSamples.gladiator(replacing: #""Metascore":"67""#, with: #""Metascore":94"#),
        warnings: ["Metascore"]
    ) { f in
        gladiatorFields(&f)
        f.metascore = nil
    },
    NormalizeCase(
        "extra unknown field",
        OMDbSamples.gladiator(replacing: #""Type":"movie""#, with: #""Type":"movie","Budget":"$103M""#),
        warnings: ["Budget"], gladiatorFields),
    NormalizeCase(
        "unicode title and escapes",
        OMDbSamples.gladiator(
            replacing: #""Title":"Gladiator""#, with: #""Title":"Am\u00e9lie \"\ud83c\udfac\" \\ Caf\u00E9 – Ōkami""#)
    ) { f in
        gladiatorFields(&f)
        f.title = "Amélie \"🎬\" \\ Café – Ōkami"
    },
    NormalizeCase(
        "ISO release date and impossible DVD date",
        OMDbSamples.gladiator(replacing: "05 May 2000", with: "2000-05-05").replacingOccurrences(
            of: "21 Nov 2000", with: "31 Feb 2001"),
        warnings: ["DVD"]
    ) { f in
        gladiatorFields(&f)
        f.dvd = nil
    },
    NormalizeCase(
        "out-of-range imdbRating and unreadable rating value",
        OMDbSamples.gladiator(replacing: #""imdbRating":"8.5""#, with: #""imdbRating":"85""#).replacingOccurrences(
            of: #""Value":"80%""#, with: #""Value":"Fresh""#),
        warnings: ["imdbRating", "Ratings"]
    ) { f in
        gladiatorFields(&f)
        f.imdbRating = nil
        f.ratings[1] = Rating(source: .rottenTomatoes, value: "Fresh", score: nil)
    },
    NormalizeCase(
        "unknown rating source is kept, duplicates in lists are dropped",
        OMDbSamples.gladiator(replacing: #""Source":"Metacritic""#, with: #""Source":"Letterboxd""#)
            .replacingOccurrences(of: "Action, Adventure, Drama", with: "sci-fi, Action, Sci-Fi ,Action,")
    ) { f in
        gladiatorFields(&f)
        f.ratings[2] = Rating(source: .other("Letterboxd"), value: "67/100", score: 67)
        f.genres = ["Sci-Fi", "Action"]
    },
    NormalizeCase(
        "unknown type and game",
        OMDbSamples.gladiator(replacing: #""Type":"movie""#, with: #""Type":"podcast""#)
    ) { f in
        gladiatorFields(&f)
        f.type = .other("podcast")
    },
]

@Suite("Normalizing real-shaped bodies")
struct NormalizeTableTests {
    @Test("Real-shaped bodies normalize to the exact film", arguments: cases)
    func normalizesRealShapedBodies(_ c: NormalizeCase) throws {
        let result = try FilmNormalizer().normalize(
            body: Array(c.body.utf8), requestedID: c.imdbID, fetchedAt: NormalizeCase.fetchedAt)
        guard case .film(let normalized) = result else {
            Issue.record("expected a film, got \(result)")
            return
        }
        #expect(normalized.film == c.expectedFilm())
        #expect(normalized.warnings.map(\.field) == c.warnings, "\(normalized.warnings)")
        for warning in normalized.warnings {
            #expect(warning.imdbID == c.imdbID)
            #expect(warning.description.hasPrefix("\(c.imdbID): field \(warning.field): "))
        }
    }

    @Test("The two-step API gives the same film as the fused one", arguments: cases)
    func twoStepMatchesFused(_ c: NormalizeCase) throws {
        let normalizer = FilmNormalizer()
        let bytes = Array(c.body.utf8)
        guard case .film(let dto) = try normalizer.decode(bytes) else {
            Issue.record("expected a film")
            return
        }
        let twoStep = normalizer.normalize(dto, imdbID: c.imdbID, raw: c.body, fetchedAt: NormalizeCase.fetchedAt)
        #expect(
            try normalizer.normalize(body: bytes, requestedID: c.imdbID, fetchedAt: NormalizeCase.fetchedAt)
                == .film(twoStep))
    }
}
