/// The values of one film's body that `s=` and `Season=` answers list, kept beside the body so those
/// answers never parse it again.
struct FilmFacts: Sendable, Equatable {
    /// The `Type` value (`movie`, `series`, `episode`), empty when absent.
    var type = ""
    /// The `Poster` URL, `N/A` when the film has none.
    var poster = "N/A"
    /// The `Released` value (`12 Jan 2001`), `N/A` when absent.
    var released = "N/A"
    /// The `imdbRating` value, `N/A` when absent.
    var imdbRating = "N/A"
    /// A series' `totalSeasons` value, `N/A` when absent.
    var totalSeasons = "N/A"
    /// An episode's `seriesID`, empty for other films.
    var seriesID = ""
    /// An episode's `Season` number, nil when absent or not a number.
    var season: Int?
    /// An episode's `Episode` number, nil when absent or not a number.
    var episode: Int?

    /// Reads the facts from a decoded OMDb body; missing or non-string values keep their defaults.
    init(object: [String: Any]) {
        func text(_ key: String) -> String? { object[key] as? String }
        type = text("Type") ?? ""
        poster = text("Poster") ?? poster
        released = text("Released") ?? released
        imdbRating = text("imdbRating") ?? imdbRating
        totalSeasons = text("totalSeasons") ?? totalSeasons
        seriesID = text("seriesID") ?? ""
        season = text("Season").flatMap { Int($0) }
        episode = text("Episode").flatMap { Int($0) }
    }

    /// Facts as the generator knows them while it writes the body.
    init(
        type: String, poster: String, released: String, imdbRating: String, totalSeasons: String = "N/A",
        seriesID: String = "", season: Int? = nil, episode: Int? = nil
    ) {
        self.type = type
        self.poster = poster
        self.released = released
        self.imdbRating = imdbRating
        self.totalSeasons = totalSeasons
        self.seriesID = seriesID
        self.season = season
        self.episode = episode
    }

    /// `Released` as a season list writes it: `12 Jan 2001` becomes `2001-01-12`; anything else `N/A`.
    var releasedDate: String {
        let parts = released.split(separator: " ")
        guard parts.count == 3, let day = Int(parts[0]), (1...31).contains(day),
            let month = CorpusVocabulary.months.firstIndex(of: String(parts[1])),
            parts[2].count == 4, Int(parts[2]) != nil
        else { return "N/A" }
        return "\(parts[2])-\(month < 9 ? "0" : "")\(month + 1)-\(day < 10 ? "0" : "")\(day)"
    }
}
