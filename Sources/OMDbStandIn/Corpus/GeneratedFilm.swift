/// The kind of title OMDb reports in its `Type` field.
public enum FilmKind: String, Sendable, CaseIterable, Codable {
    /// A feature film.
    case movie
    /// A television series; carries `totalSeasons`.
    case series
    /// One episode of a series; carries `Season`, `Episode` and `seriesID`.
    case episode
}

/// One generated film: its IMDb ID and the exact OMDb JSON body served for it.
public struct GeneratedFilm: Sendable, Equatable {
    /// The IMDb ID, `tt` followed by 7 or 8 digits.
    public let imdbID: String
    /// The film's `Title` value.
    public let title: String
    /// The film's `Year` value (series use an EN DASH range such as `2011–2019` or `1999–`).
    public let year: String
    /// The film's `Type`.
    public let kind: FilmKind
    /// The UTF-8 JSON body, byte for byte what the stand-in serves and what `<imdbID>.json` holds.
    public let body: [UInt8]
    /// What search and season answers list about the film.
    let facts: FilmFacts

    /// The body decoded as text.
    public var json: String { String(decoding: body, as: UTF8.self) }
}
