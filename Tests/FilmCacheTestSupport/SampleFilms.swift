import FilmCacheKit
import Foundation
import Logging

/// Fully populated films for store and pipeline tests.
package enum SampleFilms {
    package static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    package static func film(
        _ id: String, title: String = "Gladiator", fetchedAt: Date = Date(timeIntervalSince1970: 1_700_000_000)
    )
        -> IMDBFilm
    {
        var film = IMDBFilm(
            imdbID: id, lastFetched: fetchedAt, dataVersion: FilmNormalizer.dataVersion,
            rawJSON: #"{"Title":"\#(title)","imdbID":"\#(id)","Response":"True"}"#)
        film.title = title
        film.type = .movie
        film.yearStart = 2000
        film.rated = "R"
        film.released = CalendarDate(year: 2000, month: 5, day: 5)
        film.runtimeMinutes = 155
        film.genres = ["Action", "Adventure", "Drama"]
        film.directors = ["Ridley Scott"]
        film.writers = [Credit(name: "David Franzoni", role: "story"), Credit(name: "John Logan")]
        film.actors = ["Russell Crowe", "Joaquin Phoenix"]
        film.languages = ["English"]
        film.countries = ["United States", "United Kingdom"]
        film.plot = "A former Roman General sets out to exact vengeance: \"quotes\" \\ and ünïcödé."
        film.awards = "Won 5 Oscars"
        film.posterURL = "https://m.media-amazon.com/images/M/x.jpg"
        film.imdbRating = 8.5
        film.imdbVotes = 1_600_000
        film.metascore = 67
        film.ratings = [
            Rating(source: .imdb, value: "8.5/10", score: 85), Rating(source: .rottenTomatoes, value: "80%", score: 80),
            Rating(source: .other("Letterboxd"), value: "4.1/5", score: nil),
        ]
        film.boxOfficeUSD = 187_705_427
        film.dvd = CalendarDate(year: 2000, month: 11, day: 21)
        film.production = "N/A Pictures"
        film.website = "https://example.org"
        return film
    }
}
