/// The keys of an OMDb title body, in the order OMDb usually sends them.
enum OMDbKey: Int, CaseIterable, Sendable {
    /// One OMDb key each.
    case title, year, rated, released, season, episode, runtime, genre, director, writer, actors, plot
    case language, country, awards, poster, ratings, metascore, imdbRating, imdbVotes, imdbID, seriesID
    case type, dvd, boxOffice, production, website, totalSeasons, response, error

    /// How many keys there are, without building `allCases`.
    static let caseCount = 30

    /// OMDb's spelling of the key.
    var name: String { utf8Name.description }

    /// OMDb's spelling as static bytes, so matching a key neither allocates nor retains.
    var utf8Name: StaticString {
        switch self {
        case .title: "Title"
        case .year: "Year"
        case .rated: "Rated"
        case .released: "Released"
        case .season: "Season"
        case .episode: "Episode"
        case .runtime: "Runtime"
        case .genre: "Genre"
        case .director: "Director"
        case .writer: "Writer"
        case .actors: "Actors"
        case .plot: "Plot"
        case .language: "Language"
        case .country: "Country"
        case .awards: "Awards"
        case .poster: "Poster"
        case .ratings: "Ratings"
        case .metascore: "Metascore"
        case .imdbRating: "imdbRating"
        case .imdbVotes: "imdbVotes"
        case .imdbID: "imdbID"
        case .seriesID: "seriesID"
        case .type: "Type"
        case .dvd: "DVD"
        case .boxOffice: "BoxOffice"
        case .production: "Production"
        case .website: "Website"
        case .totalSeasons: "totalSeasons"
        case .response: "Response"
        case .error: "Error"
        }
    }

    /// Cases grouped by the byte length of their name, for the unpredicted path.
    static let byLength: [[OMDbKey]] = {
        var table = [[OMDbKey]](repeating: [], count: 16)
        for key in allCases { table[key.name.utf8.count].append(key) }
        return table
    }()

    /// Finds the key spelled by `count` bytes at `start`, trying `guess` first.
    ///
    /// OMDb sends keys in a stable order, so the guess (the case after the previous key)
    /// is almost always right and the lookup is one comparison.
    static func match(_ start: UnsafePointer<UInt8>, count: Int, guess: OMDbKey?) -> OMDbKey? {
        if let guess, equals(start, count, guess.utf8Name) { return guess }
        guard count < byLength.count else { return nil }
        for key in byLength[count] where equals(start, count, key.utf8Name) { return key }
        return nil
    }

    /// The case OMDb usually sends after this one.
    var next: OMDbKey? { OMDbKey(rawValue: rawValue + 1) }

    @inline(__always)
    private static func equals(_ start: UnsafePointer<UInt8>, _ count: Int, _ name: StaticString) -> Bool {
        guard name.utf8CodeUnitCount == count else { return false }
        let n = name.utf8Start
        for k in 0..<count where start[k] != n[k] { return false }
        return true
    }
}
