/// A normalized film and what could not be read from its body.
public struct NormalizedFilm: Sendable, Equatable {
    /// The typed film; fields that could not be read are absent.
    public var film: IMDBFilm
    /// One entry per field that was absent for a reason other than OMDb saying `N/A`.
    public var warnings: [NormalizationWarning]

    /// Creates a result.
    public init(film: IMDBFilm, warnings: [NormalizationWarning]) {
        self.film = film
        self.warnings = warnings
    }
}

/// What one OMDb body turned into: a normalized film, or OMDb's error text.
public enum NormalizedBody: Sendable, Equatable {
    /// `"Response":"True"`: the film and its warnings.
    case film(NormalizedFilm)
    /// `"Response":"False"`: OMDb's `Error` text, e.g. `Movie not found!`.
    case error(String)
}

/// A field of one film that could not be read as OMDb documents it.
///
/// The field is absent (or, for text, repaired) in the result; the warning keeps that from
/// being a silent loss. `field` is OMDb's key (`Metascore`, `Ratings`, or an unknown key).
public struct NormalizationWarning: Sendable, Equatable, CustomStringConvertible {
    /// The requested IMDb ID of the film.
    public var imdbID: String
    /// OMDb's key, e.g. `Released`.
    public var field: String
    /// What was wrong, quoting the offending text.
    public var message: String

    /// Creates a warning.
    public init(imdbID: String, field: String, message: String) {
        self.imdbID = imdbID
        self.field = field
        self.message = message
    }

    /// `tt0172495: field Metascore: expected a string, found number 94`.
    public var description: String { "\(imdbID): field \(field): \(message)" }
}
