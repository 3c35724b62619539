/// OMDb's wire shape for one title: every value a string, as OMDb sends it.
///
/// A field OMDb left out is `nil`; `"N/A"` stays `"N/A"` here and becomes absent
/// only in `IMDBFilm`. Whatever did not fit the shape (a number where a string
/// belongs, a key OMDb does not send, a broken escape) is listed in `anomalies`
/// so that normalizing can warn about it instead of losing it silently.
public struct IMDBFilmDTO: Sendable, Equatable {
    /// `imdbID` as the body states it; the film is stored under it when it is a well-formed IMDb ID.
    public var imdbID: String?
    /// `Title`.
    public var title: String?
    /// `Year`: `2000`, or a series range `2011–2019` / `1999–`.
    public var year: String?
    /// `Rated`, e.g. `PG-13`.
    public var rated: String?
    /// `Released`, e.g. `12 Jan 2001`.
    public var released: String?
    /// `Runtime`, e.g. `120 min` or `1 h 50 min`.
    public var runtime: String?
    /// `Genre`, comma-separated.
    public var genre: String?
    /// `Director`, comma-separated.
    public var director: String?
    /// `Writer`, comma-separated, each with an optional `(role)`.
    public var writer: String?
    /// `Actors`, comma-separated.
    public var actors: String?
    /// `Plot`.
    public var plot: String?
    /// `Language`, comma-separated.
    public var language: String?
    /// `Country`, comma-separated.
    public var country: String?
    /// `Awards`.
    public var awards: String?
    /// `Poster`, a URL.
    public var poster: String?
    /// `Ratings`, in OMDb's order.
    public var ratings: [RatingDTO]
    /// `Metascore`, e.g. `94`.
    public var metascore: String?
    /// `imdbRating`, e.g. `8.5`.
    public var imdbRating: String?
    /// `imdbVotes`, e.g. `1,285,100`.
    public var imdbVotes: String?
    /// `Type`: movie, series, episode or game.
    public var type: String?
    /// `DVD`, a release date like `Released`.
    public var dvd: String?
    /// `BoxOffice`, e.g. `$187,705,427`.
    package var boxOffice: String?
    /// `Production`.
    public var production: String?
    /// `Website`.
    public var website: String?
    /// `totalSeasons`, series only.
    public var totalSeasons: String?
    /// `Season`, episodes only.
    public var season: String?
    /// `Episode`, episodes only.
    public var episode: String?
    /// `seriesID`, episodes only.
    public var seriesID: String?
    /// What in the body did not fit OMDb's shape, in body order; each becomes a warning.
    package var anomalies: [WireAnomaly]

    /// Creates an empty DTO.
    public init() {
        ratings = []
        anomalies = []
    }
}

/// Something in an OMDb body that did not fit the wire shape, named by OMDb's key.
package struct WireAnomaly: Sendable, Equatable {
    /// OMDb's key, e.g. `Metascore`, or `Ratings` for a bad entry of that list.
    public var field: String
    /// What was wrong, e.g. `expected a string, found number 94`.
    public var message: String

    /// Creates an anomaly record.
    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}

/// One `{Source, Value}` entry of OMDb's `Ratings` list.
public struct RatingDTO: Sendable, Equatable {
    /// `Source`, e.g. `Rotten Tomatoes`.
    public var source: String
    /// `Value`, e.g. `98%`.
    public var value: String

    /// Creates an entry.
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
