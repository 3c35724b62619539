import Foundation

/// What the cache holds of one IMDb ID on TMDb's side, as `filmcache show` prints it.
public enum TMDbSide: Sendable, Equatable {
    /// The entry `/find` named, stored.
    case entry(TMDbFilm)
    /// `/find` named an entry that no warm has fetched yet.
    case unfetched(TMDbRef, checkedAt: Date)
    /// `/find` answered that TMDb knows no entry of the ID.
    case notOnTMDb(checkedAt: Date)

    /// What `store` holds of `imdbID` on TMDb's side, or `nil` when `/find` was never asked for it.
    public static func load(_ imdbID: String, from store: any TMDbStore) async throws(StoreError) -> TMDbSide? {
        guard let mapping = try await store.tmdbMapping(imdbID) else { return nil }
        guard let ref = mapping.ref else { return .notOnTMDb(checkedAt: mapping.checkedAt) }
        guard let film = try await store.tmdbFilm(ref) else { return .unfetched(ref, checkedAt: mapping.checkedAt) }
        return .entry(film)
    }

    /// The stored entry, if there is one.
    public var film: TMDbFilm? {
        if case .entry(let film) = self { return film }
        return nil
    }
}

/// Renders the TMDb side of one ID for `filmcache show`: a block of text under the OMDb film, and
/// a `"tmdb"` object in the JSON form (docs/IMDBFILM.md, "TMDb in `show --json`").
public enum TMDbFilmText {
    /// The credit TMDb's terms ask of applications that show its data.
    public static let attribution = "Data from TMDb (themoviedb.org); filmcache is not endorsed or certified by TMDb."

    /// The text block; an entry ends with the attribution line.
    public static func human(_ side: TMDbSide) -> String {
        switch side {
        case .notOnTMDb(let checkedAt):
            return "TMDb: no entry (checked \(day(checkedAt)))"
        case .unfetched(let ref, let checkedAt):
            return "TMDb: \(ref), not fetched yet (found \(day(checkedAt)); the next warm reading TMDb fetches it)"
        case .entry(let film):
            return human(film)
        }
    }

    /// An entry's block: its ID and type, title, dates, numbers and paths, then the attribution line.
    public static func human(_ film: TMDbFilm) -> String {
        let kind = film.ref.mediaType == .movie ? "film" : "series"
        var lines = ["TMDb \(film.ref) (\(kind)) — \(LogText.escaped(film.title))"]
        func add(_ label: String, _ value: String?) {
            if let value, !value.isEmpty {
                lines.append(TextTable.pad(label, to: 12, .left) + LogText.escaped(value))
            }
        }
        if film.originalTitle != film.title { add("original", film.originalTitle) }
        add(film.ref.mediaType == .movie ? "released" : "first aired", film.releaseDate)
        add("runtime", film.runtime.map { "\($0) min" })
        add("genres", film.genreText)
        add(
            "votes",
            film.voteAverage.map { "\(number($0))/10" + (film.voteCount.map { " (\($0) votes)" } ?? "") }
                ?? film.voteCount.map { "\($0) votes" })
        add("popularity", film.popularity.map(number))
        add("poster", film.posterPath)
        add("backdrop", film.backdropPath)
        add("collection", film.collection)
        add("status", film.status)
        add("fetched", Timestamp.format(film.fetchedAt))
        lines.append(attribution)
        return lines.joined(separator: "\n")
    }

    /// `show --json` for an ID: the film's canonical form, with `"tmdb"` added as its last key when
    /// TMDb has an entry (the entry's object) or `/find` found none (`null`); an ID only TMDb has
    /// is `{"imdbID": …, "tmdb": {…}}`. Without either, the canonical form as it always was.
    ///
    /// Ends in a newline, as the canonical form does.
    public static func json(imdbID: String, film: IMDBFilm?, tmdb side: TMDbSide?) -> String {
        let value: String?
        switch side {
        case .entry(let entry)?: value = object(entry, depth: 1)
        case .notOnTMDb?: value = "null"
        case .unfetched?, nil: value = nil
        }
        guard let film else {
            guard let value else { return "{}\n" }
            var out: [UInt8] = []
            JSONString.append(imdbID, to: &out)
            return "{\n  \"imdbID\": \(String(decoding: out, as: UTF8.self)),\n  \"tmdb\": \(value)\n}\n"
        }
        let canonical = FilmText.json(film)
        guard let value, canonical.hasSuffix("\n}\n") else { return canonical }
        return String(canonical.dropLast(3)) + ",\n  \"tmdb\": \(value)\n}\n"
    }

    /// An entry as a JSON object in TMDb's own (snake_case) names, indented for nesting `depth` deep
    /// in a two-space pretty form; absent values `null`, no genres `[]`.
    static func object(_ f: TMDbFilm, depth: Int) -> String {
        let inner = String(repeating: "  ", count: depth + 1)
        let outer = String(repeating: "  ", count: depth)
        func quoted(_ s: String?) -> String {
            guard let s else { return "null" }
            var out: [UInt8] = []
            JSONString.append(s, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
        func real(_ d: Double?) -> String { d.flatMap { $0.isFinite ? "\($0)" : nil } ?? "null" }
        let genres =
            f.genres.isEmpty
            ? "[]"
            : "[\n" + f.genres.map { inner + "  " + quoted($0) }.joined(separator: ",\n") + "\n\(inner)]"
        let fields: [(String, String)] = [
            ("tmdb_id", String(f.ref.id)),
            ("media_type", quoted(f.ref.mediaType.rawValue)),
            ("imdb_id", quoted(f.imdbID)),
            ("title", quoted(f.title)),
            ("original_title", quoted(f.originalTitle)),
            ("overview", quoted(f.overview)),
            ("release_date", quoted(f.releaseDate)),
            ("runtime", f.runtime.map(String.init) ?? "null"),
            ("genres", genres),
            ("vote_average", real(f.voteAverage)),
            ("vote_count", f.voteCount.map(String.init) ?? "null"),
            ("popularity", real(f.popularity)),
            ("poster_path", quoted(f.posterPath)),
            ("backdrop_path", quoted(f.backdropPath)),
            ("collection", quoted(f.collection)),
            ("status", quoted(f.status)),
            ("fetched_at", quoted(Timestamp.format(f.fetchedAt))),
        ]
        return "{\n" + fields.map { "\(inner)\"\($0.0)\": \($0.1)" }.joined(separator: ",\n") + "\n\(outer)}"
    }

    /// The UTC day of an instant, `2026-11-21`.
    static func day(_ instant: Date) -> String {
        String(Timestamp.format(instant).prefix(10))
    }

    /// A number for people: as TMDb gives it, to three decimals at most.
    private static func number(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }
}
