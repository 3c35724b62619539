import SplitMix

/// Draws one film's fields in OMDb's key order and renders them as OMDb's compact JSON.
struct FilmFieldGenerator {
    /// The word lists.
    typealias Words = CorpusVocabulary

    /// The film's own random stream.
    var rng: SplitMix64
    /// The kind being generated.
    let kind: FilmKind
    /// A few films are `N/A` almost everywhere, as obscure titles are on OMDb.
    private let isSparse: Bool

    /// Starts generating a film of `kind` from `rng`.
    init(rng: SplitMix64, kind: FilmKind) {
        self.rng = rng
        self.kind = kind
        isSparse = self.rng.chance(0.03)
    }

    /// Draws every field and returns the finished film.
    mutating func generate(imdbID: String, seriesID: String) -> GeneratedFilm {
        let kind = self.kind
        let startYear = drawYear()
        let season = rng.int(in: 1...9)
        let episode = rng.int(in: 1...24)
        let title = drawTitle(season: season, episode: episode)
        let year = drawYearText(startYear)
        let rating = rng.int(in: 15...96)
        let metascore = rng.int(in: 18...99)
        let hasIMDbRating = !isSparse && rng.chance(0.95)
        let hasMetacritic = kind == .movie && rng.chance(0.45)
        let tomatometer = kind == .movie && !isSparse && rng.chance(0.6) ? rng.int(in: -15...15) : nil

        var json = CompactJSON()
        json.add("Title", title)
        json.add("Year", year)
        json.add("Rated", value { $0.pick(kind == .movie ? Words.movieRatings : Words.tvRatings) })
        let released = value { $0.date(in: startYear) }
        json.add("Released", released)
        if kind == .episode {
            json.add("Season", String(season))
            json.add("Episode", String(episode))
        }
        json.add("Runtime", value { $0.runtime(year: startYear, kind: kind) })
        json.add("Genre", value { $0.list(Words.genres, 1...3) })
        json.add("Director", kind == .series ? "N/A" : value { $0.people(1...2) })
        json.add("Writer", value { $0.writers() })
        json.add("Actors", value { $0.people(3...3) })
        json.add("Plot", value { $0.plot() })
        json.add("Language", value { $0.list(Words.languages, 1...3) })
        json.add("Country", value { $0.list(Words.countries, 1...2) })
        json.add("Awards", value { $0.awards() })
        let poster = value { $0.poster() }
        json.add("Poster", poster)
        json.add(
            "Ratings",
            objects: ratings(
                rating: hasIMDbRating ? rating : nil, tomatometer: tomatometer.map { rating + rating / 3 - 10 + $0 },
                metascore: hasMetacritic ? metascore : nil))
        json.add("Metascore", hasMetacritic ? String(metascore) : "N/A")
        let imdbRating = hasIMDbRating ? tenths(rating) : "N/A"
        json.add("imdbRating", imdbRating)
        json.add("imdbVotes", value { $0.votes() })
        json.add("imdbID", imdbID)
        var facts = FilmFacts(type: kind.rawValue, poster: poster, released: released, imdbRating: imdbRating)
        switch kind {
        case .movie:
            json.add("Type", "movie")
            json.add("DVD", startYear >= 1997 ? value { $0.date(in: min(startYear + 1, 2024)) } : "N/A")
            json.add("BoxOffice", startYear >= 1975 ? value { $0.money() } : "N/A")
            json.add("Production", rng.chance(0.25) ? value { $0.pick(Words.productions) } : "N/A")
            json.add("Website", "N/A")
        case .series:
            json.add("Type", "series")
            facts.totalSeasons = value { String($0.int(in: 1...12)) }
            json.add("totalSeasons", facts.totalSeasons)
        case .episode:
            json.add("seriesID", seriesID)
            (facts.seriesID, facts.season, facts.episode) = (seriesID, season, episode)
            json.add("Type", "episode")
        }
        json.add("Response", "True")
        return GeneratedFilm(
            imdbID: imdbID, title: title, year: year, kind: kind, body: Array(json.finished().utf8), facts: facts)
    }

    // MARK: - Field helpers

    /// Runs `make`, except that sparse films and a sprinkling of others get `N/A` instead.
    private mutating func value(_ make: (inout SplitMix64) -> String) -> String {
        if isSparse || rng.chance(0.04) { return "N/A" }
        return make(&rng)
    }

    private mutating func drawYear() -> Int {
        let recentBias = rng.unit() * rng.unit()
        switch kind {
        case .movie: return 2024 - Int(recentBias * 104)
        case .series, .episode: return 2023 - Int(recentBias * 70)
        }
    }

    private mutating func drawTitle(season: Int, episode: Int) -> String {
        let roll = rng.unit()
        if kind == .episode {
            return roll < 0.3 ? "Episode #\(season).\(episode)" : rng.pick(Words.episodeTitles)
        }
        if roll < 0.09 { return rng.pick(Words.unicodeTitles) }
        if roll < 0.13 { return "The \"\(rng.pick(Words.adjectives))\" \(rng.pick(Words.nouns))" }
        let adjective = rng.pick(Words.adjectives)
        let noun = rng.pick(Words.nouns)
        let other = rng.pick(Words.nouns)
        switch rng.int(in: 0...5) {
        case 0: return "The \(adjective) \(noun)"
        case 1: return "\(noun) of the \(other)"
        case 2: return "\(rng.pick(Words.firstNames))'s \(noun)"
        case 3: return "\(adjective) \(noun) \(rng.int(in: 2...4))"
        case 4: return "\(noun): \(adjective) \(other)"
        default: return "\(adjective) \(noun)"
        }
    }

    private mutating func drawYearText(_ start: Int) -> String {
        guard kind == .series else { return String(start) }
        if rng.chance(0.55) {
            return "\(start)\u{2013}\(min(2024, start + rng.int(in: 1...12)))"
        }
        return "\(start)\u{2013}"
    }

    private func ratings(rating: Int?, tomatometer: Int?, metascore: Int?) -> [[(String, String)]] {
        var list: [[(String, String)]] = []
        if let rating { list.append([("Source", "Internet Movie Database"), ("Value", tenths(rating) + "/10")]) }
        if let tomatometer {
            list.append([("Source", "Rotten Tomatoes"), ("Value", "\(min(100, max(3, tomatometer)))%")])
        }
        if let metascore { list.append([("Source", "Metacritic"), ("Value", "\(metascore)/100")]) }
        return list
    }

    private func tenths(_ value: Int) -> String {
        "\(value / 10).\(value % 10)"
    }
}

extension SplitMix64 {
    /// `"12 Jan 2001"` style dates.
    fileprivate mutating func date(in year: Int) -> String {
        let day = int(in: 1...28)
        return (day < 10 ? "0" : "") + "\(day) \(pick(CorpusVocabulary.months)) \(year)"
    }

    /// `"120 min"`, or `"1 h 50 min"` on some old titles.
    fileprivate mutating func runtime(year: Int, kind: FilmKind) -> String {
        let minutes = kind == .movie ? int(in: 72...195) : int(in: 21...62)
        if kind == .movie && year < 1960 && chance(0.4) {
            return "\(minutes / 60) h \(minutes % 60) min"
        }
        return "\(minutes) min"
    }

    fileprivate mutating func list(_ words: [String], _ count: ClosedRange<Int>) -> String {
        pick(int(in: count), of: words).joined(separator: ", ")
    }

    fileprivate mutating func person() -> String {
        "\(pick(CorpusVocabulary.firstNames)) \(pick(CorpusVocabulary.lastNames))"
    }

    fileprivate mutating func people(_ count: ClosedRange<Int>) -> String {
        (0..<int(in: count)).map { _ in person() }.joined(separator: ", ")
    }

    fileprivate mutating func writers() -> String {
        (0..<int(in: 1...3)).map { _ in
            let name = person()
            return chance(0.7) ? "\(name) (\(pick(CorpusVocabulary.writerRoles)))" : name
        }.joined(separator: ", ")
    }

    fileprivate mutating func plot() -> String {
        let opening = pick(CorpusVocabulary.plotOpenings)
            .replacingOccurrences(of: "%@", with: pick(CorpusVocabulary.plotRoles))
        var plot = "\(opening) \(pick(CorpusVocabulary.plotMiddles)). \(pick(CorpusVocabulary.plotClosings))"
        for closing in pick(int(in: 1...2), of: CorpusVocabulary.plotClosings) { plot += " " + closing }
        return plot
    }

    fileprivate mutating func awards() -> String {
        let wins = int(in: 1...160)
        let nominations = wins + int(in: 1...200)
        switch int(in: 0...5) {
        case 0: return "Won \(plural(int(in: 1...7), "Oscar")). \(wins) wins & \(nominations) nominations total"
        case 1:
            return "Nominated for \(plural(int(in: 1...4), "Oscar")). \(wins) wins & \(nominations) nominations total"
        case 2: return "\(plural(wins, "win")) & \(plural(nominations, "nomination"))"
        case 3: return plural(int(in: 1...5), "nomination")
        default: return "N/A"
        }
    }

    fileprivate func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    fileprivate mutating func poster() -> String {
        let code = String((0..<int(in: 40...56)).map { _ in pick(CorpusVocabulary.posterAlphabet) })
        return "https://m.media-amazon.com/images/M/MV5B\(code)@@._V1_SX300.jpg"
    }

    /// `"285,100"`; small counts and a few large ones carry no commas.
    fileprivate mutating func votes() -> String {
        let magnitude = unit() * unit() * 6.4
        var count = 5
        for _ in 0..<Int(magnitude) { count *= 10 }
        count += int(in: 0...(count * 9))
        return chance(0.05) ? String(count) : grouped(count)
    }

    fileprivate mutating func money() -> String {
        let base = int(in: 10_000...999_999)
        return "$" + grouped(base * [1, 10, 100, 1_000][int(in: 0...3)] + int(in: 0...999))
    }

    fileprivate func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var out = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }
}
