/// Renders TMDb's bodies for the catalog's titles, in the shapes TMDb's API v3 answers with (the
/// same keys, nesting and JSON types), each a function of the title and its revision only.
///
/// A title's revision counts how often the changes control marked it changed: it moves the
/// vote count and popularity, so a changed title answers with a different body.
struct TMDbBodies: Sendable {
    /// The titles.
    let catalog: TMDbCatalog

    /// The facts of `title`'s corpus film.
    func facts(_ title: TMDbTitle) -> TMDbFacts {
        TMDbFacts(body: catalog.corpus.body(forID: title.imdbID) ?? [])
    }

    // MARK: - Shared values

    /// The vote count at `revision`: the IMDb votes scaled down, plus a step per change.
    func voteCount(_ facts: TMDbFacts, revision: Int) -> Int {
        facts.votes / 20 + revision * 17
    }

    /// The popularity at `revision`.
    func popularity(_ title: TMDbTitle, revision: Int) -> Double {
        Double(TMDbCatalog.hash(title.imdbID + "#popularity") % 200_000) / 1000 + 0.5 + Double(revision) * 1.25
    }

    private func genreIDs(_ facts: TMDbFacts, tv: Bool) -> TMDbJSON {
        .array(TMDbVocabulary.genres(facts.genres, tv: tv).map { .int($0.id) })
    }

    private func genres(_ facts: TMDbFacts, tv: Bool) -> TMDbJSON {
        .array(
            TMDbVocabulary.genres(facts.genres, tv: tv).map {
                .object([("id", .int($0.id)), ("name", .string($0.name))])
            }
        )
    }

    private func language(_ facts: TMDbFacts) -> String {
        facts.languages.first.flatMap { TMDbVocabulary.languages[$0] } ?? "en"
    }

    private func originCountries(_ facts: TMDbFacts) -> [String] {
        let codes = facts.countries.compactMap { TMDbVocabulary.countries[$0]?.0 }
        return codes.isEmpty ? ["US"] : codes
    }

    /// The poster path, null for a film OMDb has no poster for.
    private func posterPath(_ title: TMDbTitle) -> TMDbJSON {
        let omdbPoster = catalog.corpus.entries[title.imdbID]?.facts.poster ?? "N/A"
        return omdbPoster == "N/A" ? .null : .string(TMDbImages.filePath(for: "poster:" + title.imdbID))
    }

    private func backdropPath(_ title: TMDbTitle) -> TMDbJSON {
        .string(TMDbImages.filePath(for: "backdrop:" + title.imdbID))
    }

    private func rating(_ facts: TMDbFacts) -> TMDbJSON {
        .double(facts.rating ?? 0)
    }

    // MARK: - List items

    /// The title as `/find` and `/search/multi` list it, with its `media_type`.
    func listItem(_ title: TMDbTitle, revision: Int) -> TMDbJSON {
        let facts = facts(title)
        let overview = TMDbJSON.string(facts.plot)
        switch title.mediaType {
        case .movie:
            return .object([
                ("adult", .bool(false)), ("backdrop_path", backdropPath(title)), ("id", .int(title.id)),
                ("title", .string(facts.title)), ("original_title", .string(facts.title)), ("overview", overview),
                ("poster_path", posterPath(title)), ("media_type", .string("movie")),
                ("original_language", .string(language(facts))), ("genre_ids", genreIDs(facts, tv: false)),
                ("popularity", .double(popularity(title, revision: revision))),
                ("release_date", .string(facts.date)), ("video", .bool(false)), ("vote_average", rating(facts)),
                ("vote_count", .int(voteCount(facts, revision: revision))),
            ])
        case .tv:
            return .object([
                ("adult", .bool(false)), ("backdrop_path", backdropPath(title)), ("id", .int(title.id)),
                ("name", .string(facts.title)), ("original_name", .string(facts.title)), ("overview", overview),
                ("poster_path", posterPath(title)), ("media_type", .string("tv")),
                ("original_language", .string(language(facts))), ("genre_ids", genreIDs(facts, tv: true)),
                ("popularity", .double(popularity(title, revision: revision))),
                ("first_air_date", .string(facts.date)), ("vote_average", rating(facts)),
                ("vote_count", .int(voteCount(facts, revision: revision))),
                ("origin_country", .array(originCountries(facts).map(TMDbJSON.string))),
            ])
        }
    }

    // MARK: - Details

    /// The parts `append_to_response` adds that the stand-in knows; TMDb ignores the others too.
    static let appendable: [TMDbTitle.MediaType: Set<String>] = [
        .movie: ["external_ids", "images", "credits", "release_dates"],
        .tv: ["external_ids", "images", "credits", "content_ratings"],
    ]

    /// `/movie/{id}` or `/tv/{id}` with the `append` parts (already split, without repeats) added
    /// as keys in the order asked.
    func details(_ title: TMDbTitle, revision: Int, append: [String]) -> TMDbJSON {
        let facts = facts(title)
        var body = title.mediaType == .movie ? movie(title, facts, revision) : tv(title, facts, revision)
        let known = Self.appendable[title.mediaType] ?? []
        for part in append where known.contains(part) {
            switch part {
            case "external_ids": body = body.adding([(part, externalIDs(title))])
            case "images": body = body.adding([(part, images(title, facts))])
            case "credits": body = body.adding([(part, credits(title, facts))])
            case "release_dates": body = body.adding([(part, releaseDates(facts))])
            case "content_ratings": body = body.adding([(part, contentRatings(facts))])
            default: break
            }
        }
        return body
    }

    private func movie(_ title: TMDbTitle, _ facts: TMDbFacts, _ revision: Int) -> TMDbJSON {
        .object([
            ("adult", .bool(false)), ("backdrop_path", backdropPath(title)),
            ("belongs_to_collection", collection(title, facts)), ("budget", .int(0)),
            ("genres", genres(facts, tv: false)), ("homepage", .string("")), ("id", .int(title.id)),
            ("imdb_id", .string(title.imdbID)), ("original_language", .string(language(facts))),
            ("original_title", .string(facts.title)), ("overview", .string(facts.plot)),
            ("popularity", .double(popularity(title, revision: revision))), ("poster_path", posterPath(title)),
            ("production_companies", .array([])), ("production_countries", productionCountries(facts)),
            ("release_date", .string(facts.date)), ("revenue", .int(0)), ("runtime", .int(facts.runtime ?? 0)),
            ("spoken_languages", spokenLanguages(facts)), ("status", .string("Released")), ("tagline", .string("")),
            ("title", .string(facts.title)), ("video", .bool(false)), ("vote_average", rating(facts)),
            ("vote_count", .int(voteCount(facts, revision: revision))),
        ])
    }

    /// The collection one movie in six belongs to, else null.
    private func collection(_ title: TMDbTitle, _ facts: TMDbFacts) -> TMDbJSON {
        let hash = TMDbCatalog.hash(title.imdbID + "#collection")
        guard hash % 6 == 0 else { return .null }
        return .object([
            ("id", .int(Int(hash % 900_000) + 100_000)), ("name", .string(facts.title + " Collection")),
            ("poster_path", .string(TMDbImages.filePath(for: "collection-poster:" + title.imdbID))),
            ("backdrop_path", .string(TMDbImages.filePath(for: "collection-backdrop:" + title.imdbID))),
        ])
    }

    private func productionCountries(_ facts: TMDbFacts) -> TMDbJSON {
        .array(
            facts.countries.compactMap { TMDbVocabulary.countries[$0] }.map {
                .object([("iso_3166_1", .string($0.0)), ("name", .string($0.1))])
            })
    }

    private func spokenLanguages(_ facts: TMDbFacts) -> TMDbJSON {
        .array(
            facts.languages.compactMap { name in TMDbVocabulary.languages[name].map { (name, $0) } }.map {
                .object([("english_name", .string($0.0)), ("iso_639_1", .string($0.1)), ("name", .string($0.0))])
            })
    }

    private func tv(_ title: TMDbTitle, _ facts: TMDbFacts, _ revision: Int) -> TMDbJSON {
        let seasons = seasons(of: title, facts)
        let last = seasons.last.flatMap { season in season.episodes.last.map { (season.number, $0) } }
        let network = TMDbVocabulary.networks[Int(TMDbCatalog.hash(title.imdbID + "#network") % 6)]
        return .object([
            ("adult", .bool(false)), ("backdrop_path", backdropPath(title)), ("created_by", .array([])),
            ("episode_run_time", .array(facts.runtime.map { [.int($0)] } ?? [])),
            ("first_air_date", .string(facts.date)), ("genres", genres(facts, tv: true)), ("homepage", .string("")),
            ("id", .int(title.id)), ("in_production", .bool(!facts.hasEnded)),
            ("languages", .array(facts.languages.compactMap { TMDbVocabulary.languages[$0] }.map(TMDbJSON.string))),
            ("last_air_date", last.map { .string($0.1.airDate) } ?? .null),
            (
                "last_episode_to_air",
                last.map { episode(title, season: $0.0, $0.1, full: false, isLast: true) } ?? .null
            ),
            ("name", .string(facts.title)), ("next_episode_to_air", .null),
            (
                "networks",
                .array([
                    .object([
                        ("id", .int(network.id)), ("logo_path", .null), ("name", .string(network.name)),
                        ("origin_country", .string(network.country)),
                    ])
                ])
            ),
            ("number_of_episodes", .int(seasons.reduce(0) { $0 + $1.episodes.count })),
            ("number_of_seasons", .int(seasons.count)),
            ("origin_country", .array(originCountries(facts).map(TMDbJSON.string))),
            ("original_language", .string(language(facts))), ("original_name", .string(facts.title)),
            ("overview", .string(facts.plot)), ("popularity", .double(popularity(title, revision: revision))),
            ("poster_path", posterPath(title)), ("production_companies", .array([])),
            ("production_countries", productionCountries(facts)),
            ("seasons", .array(seasons.map { seasonSummary(title, $0) })),
            ("spoken_languages", spokenLanguages(facts)),
            ("status", .string(facts.hasEnded ? "Ended" : "Returning Series")), ("tagline", .string("")),
            ("type", .string("Scripted")), ("vote_average", rating(facts)),
            ("vote_count", .int(voteCount(facts, revision: revision))),
        ])
    }

    // MARK: - Appended parts

    /// `external_ids`: a movie's carries its IMDb ID and social IDs; a series' adds TVDB and
    /// Freebase IDs, as TMDb's do.
    func externalIDs(_ title: TMDbTitle) -> TMDbJSON {
        let social: [(String, TMDbJSON)] = [
            ("wikidata_id", .string("Q\(TMDbCatalog.hash(title.imdbID + "#wikidata") % 90_000_000 + 10_000)")),
            ("facebook_id", .null), ("instagram_id", .null), ("twitter_id", .null),
        ]
        switch title.mediaType {
        case .movie:
            return .object([("imdb_id", .string(title.imdbID))] + social)
        case .tv:
            return .object(
                [
                    ("imdb_id", .string(title.imdbID)), ("freebase_mid", .null), ("freebase_id", .null),
                    ("tvdb_id", .int(Int(TMDbCatalog.hash(title.imdbID + "#tvdb") % 400_000) + 70_000)),
                    ("tvrage_id", .null),
                ] + social)
        }
    }

    private func images(_ title: TMDbTitle, _ facts: TMDbFacts) -> TMDbJSON {
        func image(_ path: TMDbJSON, width: Int, height: Int, language: TMDbJSON) -> TMDbJSON {
            .object([
                ("aspect_ratio", .double(Double(width) / Double(height))), ("height", .int(height)),
                ("iso_639_1", language), ("file_path", path), ("vote_average", .double(5.312)),
                ("vote_count", .int(Int(TMDbCatalog.hash(title.imdbID + "#image") % 20))), ("width", .int(width)),
            ])
        }
        let poster = posterPath(title)
        return .object([
            ("backdrops", .array([image(backdropPath(title), width: 1920, height: 1080, language: .null)])),
            ("logos", .array([])),
            (
                "posters",
                .array(poster == .null ? [] : [image(poster, width: 2000, height: 3000, language: .string("en"))])
            ),
        ])
    }

    private func credits(_ title: TMDbTitle, _ facts: TMDbFacts) -> TMDbJSON {
        func person(_ name: String) -> [(String, TMDbJSON)] {
            let hash = TMDbCatalog.hash("person:" + name)
            return [
                ("adult", .bool(false)), ("gender", .int(0)), ("id", .int(Int(hash % 4_000_000) + 1)),
                ("known_for_department", .string("Acting")), ("name", .string(name)),
                ("original_name", .string(name)), ("popularity", .double(Double(hash % 20_000) / 1000)),
                ("profile_path", .string(TMDbImages.filePath(for: "profile:" + name))),
            ]
        }
        func creditID(_ role: String) -> TMDbJSON {
            let hash = TMDbCatalog.hash(title.imdbID + "#" + role)
            let hex = String(hash, radix: 16)
            return .string(String((String(repeating: "0", count: 16 - hex.count) + hex + "c3a36847").prefix(24)))
        }
        let cast = facts.actors.enumerated().map { order, name -> TMDbJSON in
            .object(
                person(name) + [
                    ("cast_id", .int(order + 1)), ("character", .string("")), ("credit_id", creditID("cast:" + name)),
                    ("order", .int(order)),
                ])
        }
        let crew =
            facts.directors.map { ($0, "Directing", "Director") } + facts.writers.map { ($0, "Writing", "Screenplay") }
        return .object([
            ("cast", .array(cast)),
            (
                "crew",
                .array(
                    crew.map { name, department, job in
                        .object(
                            person(name).map { $0.0 == "known_for_department" ? ($0.0, .string(department)) : $0 } + [
                                ("credit_id", creditID("\(job):\(name)")), ("department", .string(department)),
                                ("job", .string(job)),
                            ])
                    })
            ),
        ])
    }

    private func releaseDates(_ facts: TMDbFacts) -> TMDbJSON {
        guard !facts.date.isEmpty else { return .object([("results", .array([]))]) }
        let release = TMDbJSON.object([
            ("certification", .string(facts.rated)), ("descriptors", .array([])), ("iso_639_1", .string("")),
            ("note", .string("")), ("release_date", .string(facts.date + "T00:00:00.000Z")), ("type", .int(3)),
        ])
        return .object([
            (
                "results",
                .array([.object([("iso_3166_1", .string("US")), ("release_dates", .array([release]))])])
            )
        ])
    }

    private func contentRatings(_ facts: TMDbFacts) -> TMDbJSON {
        guard !facts.rated.isEmpty else { return .object([("results", .array([]))]) }
        return .object([
            (
                "results",
                .array([
                    .object([
                        ("descriptors", .array([])), ("iso_3166_1", .string("US")), ("rating", .string(facts.rated)),
                    ])
                ])
            )
        ])
    }
}
