/// A series' seasons as OMDb's `Season=` answers list them, built from the corpus's episode films.
extension FilmCorpus {
    /// Indexes episodes by their `seriesID`, `Season` and `Episode` values; `films` come in ID order
    /// and the first film to claim a number keeps it, so a season never lists a number twice and
    /// `Season=&Episode=` answers with the film the list names.
    static func episodeIndex(_ films: [(id: String, facts: FilmFacts)]) -> [String: [Int: [Int: String]]] {
        var index: [String: [Int: [Int: String]]] = [:]
        for (id, facts) in films where facts.type == FilmKind.episode.rawValue && !facts.seriesID.isEmpty {
            guard let season = facts.season, let episode = facts.episode else { continue }
            if index[facts.seriesID, default: [:]][season, default: [:]][episode] == nil {
                index[facts.seriesID, default: [:]][season, default: [:]][episode] = id
            }
        }
        return index
    }

    /// `imdbID` when the corpus holds it as a series, else nil.
    func series(id imdbID: String) -> String? {
        entries[imdbID]?.facts.type == FilmKind.series.rawValue ? imdbID : nil
    }

    /// The first series (in ID order) titled `title` as `t=` matches it, optionally starting in `year`.
    func series(title: String, year: String?) -> String? {
        imdbID(forTitle: title, year: year, type: FilmKind.series.rawValue)
    }

    /// The episodes of season `season` of `seriesID`, ordered by episode number; empty when none.
    func episodes(ofSeries seriesID: String, season: Int) -> [(number: Int, id: String)] {
        (episodeIDs[seriesID]?[season] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The ID of episode `episode` of season `season` of `seriesID`, or nil.
    func episodeID(ofSeries seriesID: String, season: Int, episode: Int) -> String? {
        episodeIDs[seriesID]?[season]?[episode]
    }
}
