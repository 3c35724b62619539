/// A series' seasons and episodes: the corpus's own episodes where it holds some for a season
/// (so both sources list the same ones), else a small set drawn from the series' ID.
extension TMDbBodies {
    /// One episode as the TV bodies list it.
    struct Episode: Sendable {
        /// The episode number within its season.
        var number: Int
        /// The episode's name.
        var name: String
        /// The episode's overview, "" when unknown.
        var overview: String
        /// `YYYY-MM-DD`.
        var airDate: String
        /// Minutes, nil when unknown.
        var runtime: Int?
        /// The average vote, nil when unknown.
        var rating: Double?
    }

    /// One season.
    struct Season: Sendable {
        /// The season number, from 1.
        var number: Int
        /// Its episodes by number.
        var episodes: [Episode]
    }

    /// The seasons of `title`: at least `totalSeasons` (one when unknown) and at least as many as
    /// the corpus holds episodes for, at most 30.
    func seasons(of title: TMDbTitle, _ facts: TMDbFacts) -> [Season] {
        let held = catalog.corpus.episodeIDs[title.imdbID] ?? [:]
        let count = min(30, max(facts.totalSeasons ?? 1, held.keys.max() ?? 0, 1))
        return (1...count).map { number in
            if held[number] != nil {
                let episodes = catalog.corpus.episodes(ofSeries: title.imdbID, season: number).map { episode, id in
                    let episodeFacts = TMDbFacts(body: catalog.corpus.body(forID: id) ?? [])
                    return Episode(
                        number: episode, name: episodeFacts.title, overview: episodeFacts.plot,
                        airDate: episodeFacts.date.isEmpty
                            ? Self.airDate(facts, season: number, episode: episode) : episodeFacts.date,
                        runtime: episodeFacts.runtime, rating: episodeFacts.rating)
                }
                return Season(number: number, episodes: episodes)
            }
            let count = 6 + Int(TMDbCatalog.hash(title.imdbID + "#season\(number)") % 7)
            return Season(
                number: number,
                episodes: (1...count).map { episode in
                    Episode(
                        number: episode, name: "Episode \(episode)", overview: "",
                        airDate: Self.airDate(facts, season: number, episode: episode), runtime: facts.runtime,
                        rating: nil)
                })
        }
    }

    /// A drawn episode's air date: a season a year after the one before, an episode a week after the last.
    private static func airDate(_ facts: TMDbFacts, season: Int, episode: Int) -> String {
        let year = (facts.startYear ?? 2000) + season - 1
        let month = 1 + ((episode - 1) / 4) % 12
        let day = 1 + ((episode - 1) % 4) * 7
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    /// The TMDb ID of a season.
    private func seasonID(_ title: TMDbTitle, _ number: Int) -> Int {
        title.id * 100 + number
    }

    /// A season as `/tv/{id}` lists it under `seasons`.
    func seasonSummary(_ title: TMDbTitle, _ season: Season) -> TMDbJSON {
        .object([
            ("air_date", .string(orNull: season.episodes.first?.airDate)),
            ("episode_count", .int(season.episodes.count)), ("id", .int(seasonID(title, season.number))),
            ("name", .string("Season \(season.number)")), ("overview", .string("")),
            ("poster_path", .string(TMDbImages.filePath(for: "season:\(title.imdbID):\(season.number)"))),
            ("season_number", .int(season.number)), ("vote_average", .double(0)),
        ])
    }

    /// An episode: with `full`, as `/tv/{id}/season/{n}/episode/{m}` and season bodies give it
    /// (with `crew` and `guest_stars`); without, as `last_episode_to_air`.
    func episode(_ title: TMDbTitle, season: Int, _ episode: Episode, full: Bool, isLast: Bool = false) -> TMDbJSON {
        var members: [(String, TMDbJSON)] = [("air_date", .string(episode.airDate))]
        if full { members.append(("crew", .array([]))) }
        members += [
            ("episode_number", .int(episode.number)), ("episode_type", .string(isLast ? "finale" : "standard")),
            ("runtime", episode.runtime.map(TMDbJSON.int) ?? .null), ("show_id", .int(title.id)),
        ]
        if full { members.append(("guest_stars", .array([]))) }
        members += [
            ("name", .string(episode.name)), ("overview", .string(episode.overview)),
            ("id", .int(title.id * 10_000 + season * 100 + episode.number)), ("production_code", .string("")),
            ("season_number", .int(season)),
            ("still_path", .string(TMDbImages.filePath(for: "still:\(title.imdbID):\(season):\(episode.number)"))),
            ("vote_average", .double(episode.rating ?? 0)), ("vote_count", .int(episode.rating == nil ? 0 : 12)),
        ]
        return .object(members)
    }

    /// `/tv/{id}/season/{n}`, nil when the series has no such season.
    func seasonDetails(_ title: TMDbTitle, number: Int) -> TMDbJSON? {
        guard title.mediaType == .tv,
            let season = seasons(of: title, facts(title)).first(where: { $0.number == number })
        else { return nil }
        let last = season.episodes.last?.number
        return .object([
            ("air_date", .string(orNull: season.episodes.first?.airDate)),
            (
                "episodes",
                .array(
                    season.episodes.map {
                        episode(title, season: number, $0, full: true, isLast: $0.number == last)
                    })
            ),
            ("name", .string("Season \(number)")), ("overview", .string("")), ("id", .int(seasonID(title, number))),
            ("poster_path", .string(TMDbImages.filePath(for: "season:\(title.imdbID):\(number)"))),
            ("season_number", .int(number)), ("vote_average", .double(0)),
        ])
    }

    /// `/tv/{id}/season/{n}/episode/{m}`, nil when there is no such episode.
    func episodeDetails(_ title: TMDbTitle, season number: Int, episode: Int) -> TMDbJSON? {
        guard title.mediaType == .tv,
            let season = seasons(of: title, facts(title)).first(where: { $0.number == number }),
            let found = season.episodes.first(where: { $0.number == episode })
        else { return nil }
        return self.episode(
            title, season: number, found, full: true, isLast: found.number == season.episodes.last?.number)
    }
}
