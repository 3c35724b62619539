import FilmCacheKit
import Foundation

extension FilmRow {
    /// The values of `film` in `columns` order.
    package static func values(for film: IMDBFilm) -> [SQLValue] {
        [
            .text(film.imdbID), .optional(film.title), .optional(film.type?.description), .optional(film.yearStart),
            .optional(film.yearEnd), .optional(film.rated), .optional(film.released?.description),
            .optional(film.runtimeMinutes), .text(JSONText.array(film.genres)),
            .text(JSONText.array(film.directors)), .text(JSONText.credits(film.writers)),
            .text(JSONText.array(film.actors)), .text(JSONText.array(film.languages)),
            .text(JSONText.array(film.countries)), .optional(film.plot), .optional(film.awards),
            .optional(film.posterURL), .optional(film.imdbRating), .optional(film.imdbVotes),
            .optional(film.metascore), .text(JSONText.ratings(film.ratings)), .optional(film.boxOfficeUSD),
            .optional(film.totalSeasons), .optional(film.season), .optional(film.episode),
            .optional(film.seriesID), .optional(film.dvd?.description), .optional(film.production),
            .optional(film.website), .text(film.rawJSON), .text(Timestamp.format(film.lastFetched)),
            .integer(film.dataVersion),
        ]
    }
}
