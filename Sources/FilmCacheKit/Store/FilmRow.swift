import Foundation

/// The mapping between `IMDBFilm` and a row of `films`.
///
/// List fields are JSON arrays in TEXT columns, queryable with SQLite's
/// `json_each` (docs/SCHEMA.md shows how); one statement writes a whole film.
package enum FilmRow {
    /// The columns in bind order; `imdb_id` first.
    package static let columns = [
        "imdb_id", "title", "type", "year_start", "year_end", "rated", "released", "runtime_minutes", "genres",
        "directors", "writers", "actors", "languages", "countries", "plot", "awards", "poster_url", "imdb_rating",
        "imdb_votes", "metascore", "ratings", "box_office_usd", "total_seasons", "season", "episode", "series_id",
        "dvd", "production", "website", "raw_json", "fetched_at", "data_version",
    ]

    /// Rebuilds a film from the values of one row, by their index in `columns`: a row of `films`
    /// selected with `columns` (which never fails), or a record of a CSV export, which can.
    package static func film<Row: FilmRowValues>(from row: Row) throws(Row.Failure) -> IMDBFilm {
        let decoder = JSONDecoder()
        var film = IMDBFilm(
            imdbID: try row.text(0) ?? "", lastFetched: try row.instant(30) ?? .distantPast,
            dataVersion: try row.int(31) ?? 0, rawJSON: try row.text(29) ?? "")
        film.title = try row.text(1)
        film.type = try row.text(2).map(FilmType.init(omdb:))
        film.yearStart = try row.int(3)
        film.yearEnd = try row.int(4)
        film.rated = try row.text(5)
        film.released = try row.date(6)
        film.runtimeMinutes = try row.int(7)
        film.genres = try row.list(8, String.self, decoder)
        film.directors = try row.list(9, String.self, decoder)
        film.writers = try row.list(10, Credit.self, decoder)
        film.actors = try row.list(11, String.self, decoder)
        film.languages = try row.list(12, String.self, decoder)
        film.countries = try row.list(13, String.self, decoder)
        film.plot = try row.text(14)
        film.awards = try row.text(15)
        film.posterURL = try row.text(16)
        film.imdbRating = try row.double(17)
        film.imdbVotes = try row.int(18)
        film.metascore = try row.int(19)
        film.ratings = try row.list(20, Rating.self, decoder)
        film.boxOfficeUSD = try row.int(21)
        film.totalSeasons = try row.int(22)
        film.season = try row.int(23)
        film.episode = try row.int(24)
        film.seriesID = try row.text(25)
        film.dvd = try row.date(26)
        film.production = try row.text(27)
        film.website = try row.text(28)
        return film
    }
}

/// The values of one `films` row by their index in `FilmRow.columns`, `nil` when absent.
package protocol FilmRowValues<Failure> {
    /// Why a value cannot be read; `Never` for a row SQLite returns.
    associatedtype Failure: Error
    /// The value as text.
    func text(_ index: Int32) throws(Failure) -> String?
    /// The value as an integer.
    func int(_ index: Int32) throws(Failure) -> Int?
    /// The value as a number.
    func double(_ index: Int32) throws(Failure) -> Double?
    /// A `YYYY-MM-DD` date.
    func date(_ index: Int32) throws(Failure) -> CalendarDate?
    /// An instant in `Timestamp` form.
    func instant(_ index: Int32) throws(Failure) -> Date?
    /// A JSON array of `T`; `[]` when absent.
    func list<T: Decodable>(_ index: Int32, _ type: T.Type, _ decoder: JSONDecoder) throws(Failure) -> [T]
}

/// Small, allocation-light JSON writers for the list columns.
package enum JSONText {
    /// `["a","b"]`.
    package static func array(_ items: [String]) -> String {
        list(items) { out, item in JSONString.append(item, to: &out) }
    }

    /// `[{"name":"…","role":"…"}]`, role `null` when absent.
    package static func credits(_ items: [Credit]) -> String {
        list(items) { out, item in
            out += #"{"name":"#.utf8
            JSONString.append(item.name, to: &out)
            out += #","role":"#.utf8
            if let role = item.role { JSONString.append(role, to: &out) } else { out += "null".utf8 }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `[{"source":"…","value":"…","score":79}]`, score `null` when absent.
    package static func ratings(_ items: [Rating]) -> String {
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
