import Foundation

/// The mapping between `IMDBFilm` and a row of `films`.
///
/// List fields are JSON arrays in TEXT columns, queryable with SQLite's
/// `json_each` (docs/SCHEMA.md shows how); one statement writes a whole film.
enum FilmRow {
    /// The columns in bind order; `imdb_id` first.
    static let columns = [
        "imdb_id", "title", "type", "year_start", "year_end", "rated", "released", "runtime_minutes", "genres",
        "directors", "writers", "actors", "languages", "countries", "plot", "awards", "poster_url", "imdb_rating",
        "imdb_votes", "metascore", "ratings", "box_office_usd", "total_seasons", "season", "episode", "series_id",
        "dvd", "production", "website", "raw_json", "fetched_at", "data_version",
    ]

    /// The values of `film` in `columns` order.
    static func values(for film: IMDBFilm) -> [SQLiteValue] {
        [
            .text(film.imdbID), .optional(film.title), .optional(film.type?.description), .optional(film.yearStart),
            .optional(film.yearEnd), .optional(film.rated), .optional(film.released?.description),
            .optional(film.runtimeMinutes), .text(JSONText.array(film.genres)),
            .text(JSONText.array(film.directors)), .text(JSONText.credits(film.writers)),
            .text(JSONText.array(film.actors)), .text(JSONText.array(film.languages)),
            .text(JSONText.array(film.countries)), .optional(film.plot), .optional(film.awards),
            .optional(film.posterURL), .optional(film.imdbRating), .optional(film.imdbVotes),
            .optional(film.metascore), .text(JSONText.ratings(film.ratings)), .optional(film.boxOfficeUSD),
            .optional(film.totalSeasons), .optional(film.season), .optional(film.episode),
            .optional(film.seriesID), .optional(film.dvd?.description), .optional(film.production),
            .optional(film.website), .text(film.rawJSON), .text(Timestamp.format(film.lastFetched)),
            .integer(film.dataVersion),
        ]
    }

    /// Rebuilds a film from a row selected with `columns`.
    static func film(from row: SQLiteStatement) -> IMDBFilm {
        var film = IMDBFilm(
            imdbID: row.text(0) ?? "", lastFetched: row.text(30).flatMap(Timestamp.parse) ?? .distantPast,
            dataVersion: row.int(31) ?? 0, rawJSON: row.text(29) ?? "")
        let decoder = JSONDecoder()
        func list<T: Decodable>(_ index: Int32, _: T.Type) -> [T] {
            guard let text = row.text(index) else { return [] }
            return (try? decoder.decode([T].self, from: Data(text.utf8))) ?? []
        }
        film.title = row.text(1)
        film.type = row.text(2).map(FilmType.init(omdb:))
        film.yearStart = row.int(3)
        film.yearEnd = row.int(4)
        film.rated = row.text(5)
        film.released = row.text(6).flatMap { CalendarDate(iso: $0) }
        film.runtimeMinutes = row.int(7)
        film.genres = list(8, String.self)
        film.directors = list(9, String.self)
        film.writers = list(10, Credit.self)
        film.actors = list(11, String.self)
        film.languages = list(12, String.self)
        film.countries = list(13, String.self)
        film.plot = row.text(14)
        film.awards = row.text(15)
        film.posterURL = row.text(16)
        film.imdbRating = row.double(17)
        film.imdbVotes = row.int(18)
        film.metascore = row.int(19)
        film.ratings = list(20, Rating.self)
        film.boxOfficeUSD = row.int(21)
        film.totalSeasons = row.int(22)
        film.season = row.int(23)
        film.episode = row.int(24)
        film.seriesID = row.text(25)
        film.dvd = row.text(26).flatMap { CalendarDate(iso: $0) }
        film.production = row.text(27)
        film.website = row.text(28)
        return film
    }
}

/// Small, allocation-light JSON writers for the list columns.
enum JSONText {
    /// `["a","b"]`.
    static func array(_ items: [String]) -> String {
        list(items) { out, item in JSONString.append(item, to: &out) }
    }

    /// `[{"name":"…","role":"…"}]`, role `null` when absent.
    static func credits(_ items: [Credit]) -> String {
        list(items) { out, item in
            out += #"{"name":"#.utf8
            JSONString.append(item.name, to: &out)
            out += #","role":"#.utf8
            if let role = item.role { JSONString.append(role, to: &out) } else { out += "null".utf8 }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `[{"source":"…","value":"…","score":79}]`, score `null` when absent.
    static func ratings(_ items: [Rating]) -> String {
        list(items) { out, item in
            out += #"{"source":"#.utf8
            JSONString.append(item.source.description, to: &out)
            out += #","value":"#.utf8
            JSONString.append(item.value, to: &out)
            out += #","score":"#.utf8
            out += (item.score.map(String.init) ?? "null").utf8
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON array of `items`, each written by `element`.
    private static func list<T>(_ items: [T], _ element: (inout [UInt8], T) -> Void) -> String {
        if items.isEmpty { return "[]" }
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(32 * items.count)
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            element(&out, item)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}
