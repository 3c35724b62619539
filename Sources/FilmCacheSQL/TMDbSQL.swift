import FilmCacheKit
import Foundation

// What both backends share of the TMDb tables: the rows as values (the copy's forms, `TransferTable`),
// and the upserts a TMDb write makes, written in the SQL both backends speak.

/// The statements of a TMDb write (``TMDbStore/writeTMDb(_:)``).
package enum TMDbSQL {
    /// The query of the `film_sources` view, the same on both drivers: one row per IMDb ID either
    /// source holds; of two TMDb entries naming one ID, the one `tmdb_find` maps it to.
    package static let filmSourcesSelect = """
        WITH t AS (
            SELECT e.imdb_id, e.media_type, e.tmdb_id, e.title, e.release_date, e.vote_average, e.poster_path,
                   e.fetched_at,
                   row_number() OVER (
                       PARTITION BY e.imdb_id
                       ORDER BY CASE WHEN m.media_type = e.media_type AND m.tmdb_id = e.tmdb_id THEN 0 ELSE 1 END,
                                e.media_type, e.tmdb_id) AS pick
            FROM tmdb_films AS e LEFT JOIN tmdb_find AS m ON m.imdb_id = e.imdb_id
            WHERE e.imdb_id IS NOT NULL)
        SELECT coalesce(f.imdb_id, t.imdb_id) AS imdb_id, f.title AS omdb_title, f.type AS omdb_type,
               f.year_start AS omdb_year, f.imdb_rating, f.metascore, t.media_type AS tmdb_media_type,
               t.tmdb_id, t.title AS tmdb_title, t.release_date AS tmdb_release_date,
               t.vote_average AS tmdb_vote_average, t.poster_path AS tmdb_poster_path,
               f.fetched_at AS omdb_fetched_at, t.fetched_at AS tmdb_fetched_at
        FROM films AS f FULL OUTER JOIN (SELECT * FROM t WHERE pick = 1) AS t ON t.imdb_id = f.imdb_id
        """

    /// The upsert of `tmdb_find` (``CacheTable/tmdbFind``) or `tmdb_films` (``CacheTable/tmdbFilms``)
    /// rows, `rows` the placeholders of each row's values (rows with distinct keys).
    ///
    /// A fetch replaces the held row; with ``TMDbBatch/newerWins`` the held row gives way only to a
    /// later stamp, or when it is stamped more than ``FreshnessPolicy/clockSkew`` after the batch's
    /// `now` (``TMDbBatch/replaces(stored:with:)``). An entry written takes `changed` from its values
    /// (0: the changes feed's mark is cleared).
    package static func upsert(_ table: CacheTable, rows: [[String]], batch: TMDbBatch) -> String {
        precondition(table == .tmdbFind || table == .tmdbFilms, "a TMDb write writes mappings and entries")
        let names = table.columns.map(\.name)
        let stamp = table == .tmdbFind ? "checked_at" : "fetched_at"
        let held = table.rawValue
        let updates = names.dropFirst(table.keyCount).map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        var sql =
            "INSERT INTO \(held) (\(names.joined(separator: ", "))) VALUES "
            + rows.map { "(\($0.joined(separator: ", ")))" }.joined(separator: ", ")
            + " ON CONFLICT (\(table.keyColumns.joined(separator: ", "))) DO UPDATE SET \(updates)"
        guard batch.newerWins else { return sql }
        sql += " WHERE excluded.\(stamp) > \(held).\(stamp)"
        if let now = batch.now {
            // A literal in `Timestamp` form (digits only), which both backends compare to an instant.
            sql += " OR \(held).\(stamp) > '\(Timestamp.format(now.addingTimeInterval(FreshnessPolicy.clockSkew)))'"
        }
        return sql
    }

    /// The values of mappings, in ``CacheTable/tmdbFind`` column order.
    package static func values(_ mappings: [TMDbMapping]) -> [[SQLValue]] {
        TransferPage.tmdbFind(mappings).rowValues
    }

    /// The values of entries as a write stores them (the changes feed's mark cleared), in
    /// ``CacheTable/tmdbFilms`` column order.
    package static func values(_ films: [TMDbFilm]) -> [[SQLValue]] {
        TransferPage.tmdbFilms(films.map { TMDbFilmRow(film: $0, changed: false) }).rowValues
    }

    /// Entries from rows of every ``CacheTable/tmdbFilms`` column, read as a copy reads them.
    package static func films(_ rows: [[SQLValue]]) -> [TMDbFilm] {
        guard case .tmdbFilms(let films) = TransferPage(.tmdbFilms, rows: rows) else { return [] }
        return films.map(\.film)
    }

    /// Mappings from rows of every ``CacheTable/tmdbFind`` column.
    package static func mappings(_ rows: [[SQLValue]]) -> [TMDbMapping] {
        guard case .tmdbFind(let mappings) = TransferPage(.tmdbFind, rows: rows) else { return [] }
        return mappings
    }
}
