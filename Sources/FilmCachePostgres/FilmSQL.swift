import FilmCacheKit
import Foundation
import Logging
import PostgresNIO

/// How a film is written to and read from `films` on PostgreSQL, by `FilmRow`'s columns and values
/// (the ones the SQLite backend writes), each cast to the column's own type.
///
/// The types are read from the table at open, so the column list lives in one place (`FilmRow`) and
/// the types in one other (the schema): text instants become `timestamptz` (to the second, as SQLite
/// keeps them), `YYYY-MM-DD` dates `date`, JSON lists `jsonb`, the body `json` (kept verbatim).
struct FilmSQL: Sendable {
    /// Upserts one film, every column replaced.
    let upsert: String
    /// Upserts one film only over an older one; returns a row (`true` when inserted) when it landed.
    let upsertIfNewer: String
    /// `SELECT <FilmRow.columns> FROM films`, dates read back as `YYYY-MM-DD`.
    let select: String
    /// Each column's type, in `FilmRow.columns` order.
    private let types: [String]
    /// What follows the values in ``upsertIfNewer``: the conflict rule, the newer film winning.
    private let ifNewer: String

    init(_ c: PostgresConnection, logger: Logger) async throws {
        var types: [String: String] = [:]
        for row in try await c.rows(
            """
            SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute
            WHERE attrelid = 'films'::regclass AND attnum > 0 AND NOT attisdropped
            """, logger)
        {
            let (name, type) = try row.decode((String, String).self)
            types[name] = type
        }
        self.init(types: types)
    }

    /// The statements for columns of these types.
    init(types: [String: String]) {
        let columns = FilmRow.columns
        let values = columns.enumerated().map { index, column in "$\(index + 1)::\(types[column] ?? "text")" }
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let insert =
            "INSERT INTO films (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        let conflict = " ON CONFLICT (imdb_id) DO UPDATE SET \(updates)"
        upsert = insert + conflict
        ifNewer = conflict + " WHERE excluded.fetched_at > films.fetched_at"
        upsertIfNewer = insert + ifNewer + " RETURNING (xmax = 0)"
        self.types = columns.map { types[$0] ?? "text" }
        let selected = columns.map { column in
            types[column] == "date" ? "to_char(\(column), 'YYYY-MM-DD')" : column
        }
        select = "SELECT \(selected.joined(separator: ", ")) FROM films"
    }

    /// The upsert of `film`, with its values bound.
    func upsert(_ film: IMDBFilm, ifNewer: Bool = false) -> PostgresQuery {
        PostgresQuery(
            unsafeSQL: ifNewer ? upsertIfNewer : upsert, binds: PostgresBindings(values: FilmRow.values(for: film)))
    }

    /// Upserts `films` (distinct IDs) in one statement, each only over an older one (as
    /// ``upsertIfNewer``); returns a row for each that landed: its ID, and `true` when inserted.
    func upsertIfNewer(_ films: [IMDBFilm]) -> PostgresQuery {
        let width = types.count
        let rows = films.indices.map { row in
            "(" + types.enumerated().map { "$\(row * width + $0 + 1)::\($1)" }.joined(separator: ", ") + ")"
        }
        return PostgresQuery(
            unsafeSQL: "INSERT INTO films (\(FilmRow.columns.joined(separator: ", "))) VALUES "
                + rows.joined(separator: ", ") + ifNewer + " RETURNING imdb_id, (xmax = 0)",
            binds: PostgresBindings(values: films.flatMap(FilmRow.values(for:))))
    }

    /// The film in a row selected with ``select``.
    static func film(_ row: PostgresRow) -> IMDBFilm {
        FilmRow.film(from: FilmCells(row: row.makeRandomAccess()))
    }
}

/// One `films` row's cells by their index in `FilmRow.columns`; a cell of another type than its
/// column's reads as absent, as a SQLite row's does.
struct FilmCells: FilmRowValues {
    let row: PostgresRandomAccessRow

    func text(_ index: Int32) -> String? { try? row[Int(index)].decode(String?.self) }
    func int(_ index: Int32) -> Int? { try? row[Int(index)].decode(Int?.self) }
    func double(_ index: Int32) -> Double? { try? row[Int(index)].decode(Double?.self) }
    func date(_ index: Int32) -> CalendarDate? { text(index).flatMap { CalendarDate(iso: $0) } }
    func instant(_ index: Int32) -> Date? { try? row[Int(index)].decode(Date?.self) }

    func list<T: Decodable>(_ index: Int32, _ type: T.Type, _ decoder: JSONDecoder) -> [T] {
        guard let text = text(index) else { return [] }
        return (try? decoder.decode([T].self, from: Data(text.utf8))) ?? []
    }
}

extension Date {
    /// This instant truncated to the whole second toward the past: the precision the cache keeps
    /// on every backend (SQLite's `Timestamp` text form holds seconds), so both answer alike.
    var wholeSecond: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
