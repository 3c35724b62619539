/// OMDb's wire shape for one title: every value a string, as OMDb sends it.
///
/// A field OMDb left out is `nil`; `"N/A"` stays `"N/A"` here and becomes absent
/// only in `IMDBFilm`.
public struct IMDBFilmDTO: Sendable, Equatable {
    public var imdbID: String?
    public var title: String?
    public var year: String?
    public var rated: String?
    public var released: String?
    public var runtime: String?
    public var genre: String?
    public var director: String?
    public var writer: String?
    public var actors: String?
    public var plot: String?
    public var language: String?
    public var country: String?
    public var awards: String?
    public var poster: String?
    public var ratings: [RatingDTO]
    public var metascore: String?
    public var imdbRating: String?
    public var imdbVotes: String?
    public var type: String?
    public var dvd: String?
    public var boxOffice: String?
    public var production: String?
    public var website: String?
    public var totalSeasons: String?
    public var season: String?
    public var episode: String?
    public var seriesID: String?
    /// Fields whose JSON value was not a string (name, and what was found), kept for warnings.
    public var unexpected: [(field: String, found: String)]

    /// Creates an empty DTO.
    public init() {
        ratings = []
        unexpected = []
    }

    public static func == (a: IMDBFilmDTO, b: IMDBFilmDTO) -> Bool {
        a.imdbID == b.imdbID && a.title == b.title && a.year == b.year && a.rated == b.rated
            && a.released == b.released && a.runtime == b.runtime && a.genre == b.genre
            && a.director == b.director && a.writer == b.writer && a.actors == b.actors && a.plot == b.plot
            && a.language == b.language && a.country == b.country && a.awards == b.awards
            && a.poster == b.poster && a.ratings == b.ratings && a.metascore == b.metascore
            && a.imdbRating == b.imdbRating && a.imdbVotes == b.imdbVotes && a.type == b.type && a.dvd == b.dvd
            && a.boxOffice == b.boxOffice && a.production == b.production && a.website == b.website
            && a.totalSeasons == b.totalSeasons && a.season == b.season && a.episode == b.episode
            && a.seriesID == b.seriesID
            && a.unexpected.map { "\($0.field)=\($0.found)" } == b.unexpected.map { "\($0.field)=\($0.found)" }
    }
}

/// One `{Source, Value}` entry of OMDb's `Ratings` list.
public struct RatingDTO: Sendable, Equatable {
    public var source: String
    public var value: String

    public init(source: String, value: String) {
        self.source = source
        self.value = value
    }
}

/// What an OMDb body says: a title, or OMDb's own error message.
public enum OMDbBody: Sendable, Equatable {
    /// `"Response":"True"` with the title's fields.
    case film(IMDBFilmDTO)
    /// `"Response":"False"` with OMDb's `Error` text, e.g. `Incorrect IMDb ID.`
    case error(String)
}
