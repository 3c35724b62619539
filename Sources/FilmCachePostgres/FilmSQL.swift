import FilmCacheKit
import FilmCacheSQL
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
    /// Upserts a batch of films (``rows(_:)`` bound), every column replaced.
    let upsert: String
    /// Upserts a batch of films only over older ones (or ones stamped in the future beyond the clock
    /// skew, which no instant may pin); returns `imdb_id` and `inserted` (`true` when new) for each
    /// film that landed.
    let upsertIfNewer: String
    /// `SELECT <FilmRow.columns> FROM films`, dates read back as `YYYY-MM-DD`.
    let select: String

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
        let values = columns.map { column in "u.\(column)::\(types[column] ?? "text")" }
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let insert =
            "INSERT INTO films (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", "))"
            + " FROM \(ColumnArrays.unnest(columns)) ON CONFLICT (imdb_id) DO UPDATE SET \(updates)"
        upsert = insert
        upsertIfNewer =
            insert
            + " WHERE excluded.fetched_at > films.fetched_at"
            + " OR films.fetched_at > $\(columns.count + 1)::timestamptz"
            + " RETURNING films.imdb_id, (films.xmax = 0)"
        let selected = columns.map { column in
            types[column] == "date" ? "to_char(\(column), 'YYYY-MM-DD')" : column
        }
        select = "SELECT \(selected.joined(separator: ", ")) FROM films"
    }

    /// The upsert of `films` (no ID twice: see `Array.rounds(by:)`), their values bound.
    func upsert(_ films: [IMDBFilm]) -> PostgresQuery {
        PostgresQuery(unsafeSQL: upsert, binds: Self.rows(films).binds)
    }

    /// The upsert of `films` where each is newer than the cached one, or the cached one is stamped
    /// more than ``FreshnessPolicy/clockSkew`` after `now`.
    func upsert(_ films: [IMDBFilm], ifNewerAt now: Date) -> PostgresQuery {
        var binds = Self.rows(films).binds
        binds.append(now.addingTimeInterval(FreshnessPolicy.clockSkew))
        return PostgresQuery(unsafeSQL: upsertIfNewer, binds: binds)
    }

    /// The values of `films`, one array per column of `FilmRow.columns`.
    static func rows(_ films: [IMDBFilm]) -> ColumnArrays {
        var rows = ColumnArrays(columns: FilmRow.columns.count)
        var cells: [String?] = []
        cells.reserveCapacity(FilmRow.columns.count)
        for film in films {
            cells.removeAll(keepingCapacity: true)
            for value in FilmRow.values(for: film) {
                switch value {
                case .null: cells.append(nil)
                case .integer(let number): cells.append(String(number))
                // The shortest text that reads back as the same double.
                case .real(let number): cells.append("\(number)")
                case .text(let text): cells.append(text)
                // A film has no bytes that are not text.
                case .blob(let bytes): cells.append(String(decoding: bytes, as: UTF8.self))
                }
            }
            rows.append(cells)
        }
        return rows
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
