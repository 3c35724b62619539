import Foundation

/// The canonical cached film: OMDb's strings turned into typed, comparable values.
///
/// Its JSON form (camelCase keys, absent values `null`, lists `[]`) is a documented
/// contract used by `filmcache show --json` and exports; `canonicalJSON()` writes it with
/// keys in the documented order (see docs/IMDBFILM.md). `Codable` reads and writes the same
/// keys, but `JSONEncoder` does not keep their order.
public struct IMDBFilm: Sendable, Equatable, Codable {
    /// IMDb's identifier, `tt` followed by digits.
    public var imdbID: String
    /// Title as OMDb gives it.
    public var title: String?
    /// Movie, series, episode, game, or OMDb's own word.
    public var type: FilmType?
    /// First year; for a series, the year it started.
    public var yearStart: Int?
    /// Last year of a finished series; `nil` for a single year or a series still running.
    public var yearEnd: Int?
    /// Certificate text, e.g. `PG-13`, `TV-MA`.
    public var rated: String?
    /// Release date (first release for a series).
    public var released: CalendarDate?
    /// Running time in minutes; per episode for a series.
    public var runtimeMinutes: Int?
    /// IMDb genre names (`Sci-Fi`, `Film-Noir`), duplicates removed, OMDb's order.
    public var genres: [String]
    /// Director names, duplicates removed, OMDb's order.
    public var directors: [String]
    /// Writer credits with their role, duplicates removed, OMDb's order.
    public var writers: [Credit]
    /// Leading actors, duplicates removed, OMDb's order.
    public var actors: [String]
    /// Spoken languages, duplicates removed, OMDb's order.
    public var languages: [String]
    /// Countries of origin, duplicates removed, OMDb's order.
    public var countries: [String]
    /// Plot summary, short or full as requested.
    public var plot: String?
    /// Awards summary text, e.g. `Won 5 Oscars.`
    public var awards: String?
    /// Poster image URL.
    public var posterURL: String?
    /// IMDb user rating, 0–10 with one decimal.
    public var imdbRating: Double?
    /// Number of IMDb user votes.
    public var imdbVotes: Int?
    /// Metacritic score, 0–100.
    public var metascore: Int?
    /// OMDb's `Ratings` list, in OMDb's order.
    public var ratings: [Rating]
    /// US box office gross in whole US dollars.
    public var boxOfficeUSD: Int?
    /// Number of seasons; series only.
    public var totalSeasons: Int?
    /// Season number; episodes only.
    public var season: Int?
    /// Episode number within the season; episodes only.
    public var episode: Int?
    /// IMDb ID of the series; episodes only.
    public var seriesID: String?
    /// DVD release date.
    public var dvd: CalendarDate?
    /// Production company text.
    public var production: String?
    /// Official website URL.
    public var website: String?
    /// When OMDb answered with this data.
    public var lastFetched: Date
    /// The normalizer version that produced this value; older versions are stale.
    public var dataVersion: Int
    /// OMDb's JSON body, verbatim. Not part of the canonical JSON form.
    public var rawJSON: String

    /// Creates a film with only its identity set; every other field absent.
    public init(imdbID: String, lastFetched: Date, dataVersion: Int, rawJSON: String) {
        self.imdbID = imdbID
        self.genres = []
        self.directors = []
        self.writers = []
        self.actors = []
        self.languages = []
        self.countries = []
        self.ratings = []
        self.lastFetched = lastFetched
        self.dataVersion = dataVersion
        self.rawJSON = rawJSON
    }

    /// Keys of the canonical JSON form, in documented order.
    enum CodingKeys: String, CodingKey {
        case imdbID, title, type, yearStart, yearEnd, rated, released, runtimeMinutes, genres, directors, writers
        case actors, languages, countries, plot, awards, posterURL, imdbRating, imdbVotes, metascore, ratings
        case boxOfficeUSD, totalSeasons, season, episode, seriesID, dvd, production, website, lastFetched
        case dataVersion
    }

    /// Decodes the canonical JSON form; `rawJSON` is not part of it and comes back empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        imdbID = try c.decode(String.self, forKey: .imdbID)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        type = try c.decodeIfPresent(FilmType.self, forKey: .type)
        yearStart = try c.decodeIfPresent(Int.self, forKey: .yearStart)
        yearEnd = try c.decodeIfPresent(Int.self, forKey: .yearEnd)
        rated = try c.decodeIfPresent(String.self, forKey: .rated)
        released = try c.decodeIfPresent(CalendarDate.self, forKey: .released)
        runtimeMinutes = try c.decodeIfPresent(Int.self, forKey: .runtimeMinutes)
        genres = try c.decodeIfPresent([String].self, forKey: .genres) ?? []
        directors = try c.decodeIfPresent([String].self, forKey: .directors) ?? []
        writers = try c.decodeIfPresent([Credit].self, forKey: .writers) ?? []
        actors = try c.decodeIfPresent([String].self, forKey: .actors) ?? []
        languages = try c.decodeIfPresent([String].self, forKey: .languages) ?? []
        countries = try c.decodeIfPresent([String].self, forKey: .countries) ?? []
        plot = try c.decodeIfPresent(String.self, forKey: .plot)
        awards = try c.decodeIfPresent(String.self, forKey: .awards)
        posterURL = try c.decodeIfPresent(String.self, forKey: .posterURL)
        imdbRating = try c.decodeIfPresent(Double.self, forKey: .imdbRating)
        imdbVotes = try c.decodeIfPresent(Int.self, forKey: .imdbVotes)
        metascore = try c.decodeIfPresent(Int.self, forKey: .metascore)
        ratings = try c.decodeIfPresent([Rating].self, forKey: .ratings) ?? []
        boxOfficeUSD = try c.decodeIfPresent(Int.self, forKey: .boxOfficeUSD)
        totalSeasons = try c.decodeIfPresent(Int.self, forKey: .totalSeasons)
        season = try c.decodeIfPresent(Int.self, forKey: .season)
        episode = try c.decodeIfPresent(Int.self, forKey: .episode)
        seriesID = try c.decodeIfPresent(String.self, forKey: .seriesID)
        dvd = try c.decodeIfPresent(CalendarDate.self, forKey: .dvd)
        production = try c.decodeIfPresent(String.self, forKey: .production)
        website = try c.decodeIfPresent(String.self, forKey: .website)
        lastFetched = try c.decode(Date.self, forKey: .lastFetched)
        dataVersion = try c.decode(Int.self, forKey: .dataVersion)
        rawJSON = ""
    }

    /// Encodes the canonical JSON form: every key present, absent values as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(imdbID, forKey: .imdbID)
        try c.encode(title, forKey: .title)
        try c.encode(type, forKey: .type)
        try c.encode(yearStart, forKey: .yearStart)
        try c.encode(yearEnd, forKey: .yearEnd)
        try c.encode(rated, forKey: .rated)
        try c.encode(released, forKey: .released)
        try c.encode(runtimeMinutes, forKey: .runtimeMinutes)
        try c.encode(genres, forKey: .genres)
        try c.encode(directors, forKey: .directors)
        try c.encode(writers, forKey: .writers)
        try c.encode(actors, forKey: .actors)
        try c.encode(languages, forKey: .languages)
        try c.encode(countries, forKey: .countries)
        try c.encode(plot, forKey: .plot)
        try c.encode(awards, forKey: .awards)
        try c.encode(posterURL, forKey: .posterURL)
        try c.encode(imdbRating, forKey: .imdbRating)
        try c.encode(imdbVotes, forKey: .imdbVotes)
        try c.encode(metascore, forKey: .metascore)
        try c.encode(ratings, forKey: .ratings)
        try c.encode(boxOfficeUSD, forKey: .boxOfficeUSD)
        try c.encode(totalSeasons, forKey: .totalSeasons)
        try c.encode(season, forKey: .season)
        try c.encode(episode, forKey: .episode)
        try c.encode(seriesID, forKey: .seriesID)
        try c.encode(dvd, forKey: .dvd)
        try c.encode(production, forKey: .production)
        try c.encode(website, forKey: .website)
        try c.encode(lastFetched, forKey: .lastFetched)
        try c.encode(dataVersion, forKey: .dataVersion)
    }
}

/// What kind of title OMDb says a film is; an unknown kind keeps OMDb's text.
public enum FilmType: Sendable, Hashable, OMDbWord {
    /// A kind OMDb documents.
    case movie, series, episode, game
    /// A kind OMDb did not document, with its text.
    case other(String)

    /// Maps OMDb's `Type` text, case-insensitively, onto the known kinds.
    public init(omdb text: String) {
        switch text.lowercased() {
        case "movie": self = .movie
        case "series": self = .series
        case "episode": self = .episode
        case "game": self = .game
        default: self = .other(text)
        }
    }

    /// The text stored in the database and the JSON form.
    public var description: String {
        switch self {
        case .movie: "movie"
        case .series: "series"
        case .episode: "episode"
        case .game: "game"
        case .other(let text): text
        }
    }
}

/// A day with no time or zone, encoded as ISO `YYYY-MM-DD`.
public struct CalendarDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Year, 1–9999.
    public var year: Int
    /// Month, 1–12.
    public var month: Int
    /// Day of the month, 1–31.
    public var day: Int

    /// Creates a date; callers validate the ranges.
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`; `nil` for anything else or an impossible day.
    public init?(iso text: some StringProtocol) {
        // Read as bytes in place: the planner reads one a cached film, a thousand in a start-up.
        guard
            let date = text.utf8.withContiguousStorageIfAvailable(CalendarDate.iso)
                ?? Array(text.utf8).withUnsafeBufferPointer(CalendarDate.iso)
        else { return nil }
        self = date
    }

    /// `YYYY-MM-DD` in exactly ten bytes, each digit a digit; `nil` for anything else or an impossible day.
    private static func iso(_ bytes: UnsafeBufferPointer<UInt8>) -> CalendarDate? {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), isValid(year: y, month: m, day: d)
        else { return nil }
        return CalendarDate(year: y, month: m, day: d)
    }

    /// Whether the day exists in the proleptic Gregorian calendar.
    public static func isValid(year: Int, month: Int, day: Int) -> Bool {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1 else { return false }
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return day <= (leap ? 29 : 28)
        case 4, 6, 9, 11: return day <= 30
        default: return day <= 31
        }
    }

    /// ISO form, `2001-01-12`.
    public var description: String {
        let y = String(year)
        let m = month < 10 ? "0\(month)" : "\(month)"
        let d = day < 10 ? "0\(day)" : "\(day)"
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + m + "-" + d
    }

    /// Orders dates by calendar position.
    public static func < (a: CalendarDate, b: CalendarDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// Decodes from the canonical JSON form.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = CalendarDate(iso: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not an ISO date: \(text)"))
        }
        self = date
    }

    /// Encodes into the canonical JSON form.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// A person credited on a film, with the role text OMDb gives in parentheses, if any.
public struct Credit: Sendable, Hashable, Codable {
    /// The person's name, e.g. `Jane Doe`.
    public var name: String
    /// `screenplay` in `"Jane Doe (screenplay)"`; `nil` when OMDb gives none.
    public var role: String?

    /// Creates a credit.
    public init(name: String, role: String? = nil) {
        self.name = name
        self.role = role
    }

    /// Encodes into the canonical JSON form.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(role, forKey: .role)
    }
}

/// One entry of OMDb's `Ratings` list: the raw value and a 0–100 score.
public struct Rating: Sendable, Hashable, Codable {
    /// Who rated it.
    public var source: RatingSource
    /// OMDb's text, e.g. `7.9/10`, `98%`, `94/100`.
    public var value: String
    /// The value on a 0–100 scale; `nil` when the value has no recognizable shape.
    public var score: Int?

    /// Creates a rating.
    public init(source: RatingSource, value: String, score: Int?) {
        self.source = source
        self.value = value
        self.score = score
    }

    /// Encodes into the canonical JSON form.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(source, forKey: .source)
        try c.encode(value, forKey: .value)
        try c.encode(score, forKey: .score)
    }
}

/// The rating sources OMDb reports; an unknown source keeps its name.
public enum RatingSource: Sendable, Hashable, OMDbWord {
    /// A source OMDb documents.
    case imdb, rottenTomatoes, metacritic
    /// A kind OMDb did not document, with its text.
    case other(String)

    /// Maps OMDb's `Source` text onto the closed set.
    public init(omdb text: String) {
        switch text {
        case "Internet Movie Database": self = .imdb
        case "Rotten Tomatoes": self = .rottenTomatoes
        case "Metacritic": self = .metacritic
        default: self = .other(text)
        }
    }

    /// OMDb's name for the source, as stored and encoded.
    public var description: String {
        switch self {
        case .imdb: "Internet Movie Database"
        case .rottenTomatoes: "Rotten Tomatoes"
        case .metacritic: "Metacritic"
        case .other(let text): text
        }
    }
}
