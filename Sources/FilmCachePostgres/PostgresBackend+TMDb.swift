import FilmCacheKit
import FilmCacheSQL
import Foundation
import PostgresNIO

/// The TMDb tables (``TMDbStore``): the same rules as `CacheStore+TMDb.swift`, set-based (a batch, a
/// list of IDs or entries is one statement, bound as arrays), safe with any number of processes
/// writing at once. A read-only open of a database from before them reads them as empty.
extension PostgresBackend {
    /// IDs one statement of ``tmdbStates(of:)`` reads.
    static let tmdbStatesChunk = 50_000

    /// Commits mappings and entries in one transaction, one upsert per chunk of rows with distinct
    /// keys (`Array.rounds(by:)`), its `WHERE` keeping a newer held row when the batch asks
    /// (`TMDbSQL.upsert`); each row written comes back, so what was kept is counted.
    public func writeTMDb(_ batch: TMDbBatch) async throws(StoreError) -> TMDbWriteCounts {
        guard !batch.isEmpty else { return TMDbWriteCounts() }
        // In key order within a round, so two writers of the same rows never wait on each other in a circle.
        let mappings = batch.mappings.rounds(by: \.imdbID).map { round in
            TMDbSQL.values(round.sorted { $0.imdbID.utf8.lexicographicallyPrecedes($1.imdbID.utf8) })
        }
        let films = batch.films.rounds(by: \.ref).map { TMDbSQL.values($0.sorted { $0.ref < $1.ref }) }
        return try await transaction { c, logger in
            var counts = TMDbWriteCounts()
            for round in mappings {
                let (written, kept) = try await Self.upsert(.tmdbFind, round, batch: batch, c, logger)
                counts.mappings += written
                counts.mappingsKept += kept
            }
            for round in films {
                let (written, kept) = try await Self.upsert(.tmdbFilms, round, batch: batch, c, logger)
                counts.films += written
                counts.filmsKept += kept
            }
            return counts
        }
    }

    /// Upserts rows of distinct keys, as many a statement as its parameters allow; how many were
    /// written and how many kept.
    private static func upsert(
        _ table: CacheTable, _ rows: [[SQLValue]], batch: TMDbBatch, _ c: PostgresConnection, _ logger: Logger
    ) async throws -> (written: Int, kept: Int) {
        let width = table.columns.count
        let chunk = rowsPerStatement(width)
        var written = 0
        for start in stride(from: 0, to: rows.count, by: chunk) {
            let part = rows[start..<min(start + chunk, rows.count)]
            let placeholders = part.indices.map { Self.placeholders(table.columns, offset: ($0 - start) * width) }
            let query = PostgresQuery(
                unsafeSQL: TMDbSQL.upsert(table, rows: placeholders, batch: batch) + " RETURNING 1",
                binds: PostgresBindings(values: part.flatMap { $0 }))
            written += try await c.rows(query, logger).count
        }
        return (written, rows.count - written)
    }

    /// What the cache knows of each distinct ID, in the order given: one repeatable-read transaction,
    /// one statement per ``tmdbStatesChunk`` IDs (bound as one array) joined to `tmdb_find` and
    /// `tmdb_films` by their keys.
    public func tmdbStates(of imdbIDs: [String]) async throws(StoreError) -> [TMDbState] {
        var seen: Set<String> = []
        let ids = imdbIDs.filter { seen.insert($0).inserted }
        guard hasTMDb, !ids.isEmpty else { return ids.map { TMDbState(imdbID: $0, mapping: nil) } }
        return try await transaction { c, logger in
            try await c.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger)
            var states = ids.map { TMDbState(imdbID: $0, mapping: nil) }
            for start in stride(from: 0, to: ids.count, by: Self.tmdbStatesChunk) {
                let chunk = Array(ids[start..<min(start + Self.tmdbStatesChunk, ids.count)])
                let rows = try await c.rows(
                    """
                    SELECT u.ordinality, m.media_type, m.tmdb_id, m.checked_at, f.fetched_at, f.changed
                    FROM unnest(\(chunk)::text[]) WITH ORDINALITY AS u(imdb_id, ordinality)
                    JOIN tmdb_find AS m ON m.imdb_id = u.imdb_id
                    LEFT JOIN tmdb_films AS f ON f.media_type = m.media_type AND f.tmdb_id = m.tmdb_id
                    """, logger)
                for row in rows {
                    let (ordinality, type, id, checkedAt, fetchedAt, changed) = try row.decode(
                        (Int, String?, Int?, Date, Date?, Bool?).self)
                    let index = start + ordinality - 1
                    guard states.indices.contains(index) else { continue }
                    let ref = type.flatMap(TMDbMediaType.init(rawValue:)).flatMap { type in id.map { TMDbRef(type, $0) }
                    }
                    states[index].mapping = TMDbMapping(imdbID: states[index].imdbID, ref: ref, checkedAt: checkedAt)
                    states[index].fetchedAt = fetchedAt
                    states[index].changed = changed ?? false
                }
            }
            return states
        }
    }

    public func tmdbFilm(_ ref: TMDbRef) async throws(StoreError) -> TMDbFilm? {
        guard hasTMDb else { return nil }
        let sql = Self.selectTMDb(.tmdbFilms) + " WHERE media_type = $1 AND tmdb_id = $2"
        let binds = PostgresBindings(values: [.text(ref.mediaType.rawValue), .integer(ref.id)])
        return TMDbSQL.films(try await read(.tmdbFilms, sql, binds)).first
    }

    public func tmdbMapping(_ imdbID: String) async throws(StoreError) -> TMDbMapping? {
        guard hasTMDb else { return nil }
        let sql = Self.selectTMDb(.tmdbFind) + " WHERE imdb_id = $1"
        return TMDbSQL.mappings(try await read(.tmdbFind, sql, PostgresBindings(values: [.text(imdbID)]))).first
    }

    /// Marks those of `refs` the cache holds in one statement; how many were not marked before.
    public func markTMDbChanged(_ refs: [TMDbRef]) async throws(StoreError) -> Int {
        let refs = Set(refs).sorted()
        guard !refs.isEmpty else { return 0 }
        let types = refs.map(\.mediaType.rawValue)
        let ids = refs.map(\.id)
        return try await withConnection { c, logger in
            try await c.rows(
                """
                UPDATE tmdb_films AS f SET changed = true
                FROM unnest(\(types)::text[], \(ids)::bigint[]) AS u(media_type, tmdb_id)
                WHERE f.media_type = u.media_type AND f.tmdb_id = u.tmdb_id AND NOT f.changed
                RETURNING 1
                """, logger
            ).count
        }
    }

    public func tmdbChangesSyncedThrough() async throws(StoreError) -> Date? {
        guard hasTMDb else { return nil }
        return try await withConnection { c, logger in
            try await c.rows("SELECT synced_through FROM tmdb_sync WHERE id = 1", logger).first?.decode(Date.self)
        }
    }

    public func setTMDbChangesSynced(through instant: Date) async throws(StoreError) {
        try await withConnection { c, logger in
            try await c.run(
                """
                INSERT INTO tmdb_sync (id, synced_through) VALUES (1, \(instant.wholeSecond))
                ON CONFLICT (id) DO UPDATE SET synced_through = excluded.synced_through
                """, logger)
        }
    }

    /// Adds the day's calls in one statement: `ON CONFLICT … DO UPDATE` adds to the row as it stands
    /// when the statement gets its lock, so processes counting at once lose no call.
    public func countTMDbCalls(_ calls: [String: Int], day: String) async throws(StoreError) {
        let calls = calls.filter { $0.value != 0 }.sorted { $0.key < $1.key }
        guard !calls.isEmpty else { return }
        let kinds = calls.map(\.key)
        let counts = calls.map(\.value)
        try await withConnection { c, logger in
            try await c.run(
                """
                INSERT INTO tmdb_calls (day, kind, calls)
                SELECT \(day), u.kind, u.calls FROM unnest(\(kinds)::text[], \(counts)::bigint[]) AS u(kind, calls)
                ON CONFLICT (day, kind) DO UPDATE SET calls = tmdb_calls.calls + excluded.calls
                """, logger)
        }
    }

    public func tmdbCalls(since day: String) async throws(StoreError) -> [String: [String: Int]] {
        guard hasTMDb else { return [:] }
        return try await withConnection { c, logger in
            var calls: [String: [String: Int]] = [:]
            for row in try await c.rows("SELECT day, kind, calls FROM tmdb_calls WHERE day >= \(day)", logger) {
                let (day, kind, count) = try row.decode((String, String, Int).self)
                calls[day, default: [:]][kind] = count
            }
            return calls
        }
    }

    public func tmdbCensus(staleBefore: Date) async throws(StoreError) -> TMDbCensus {
        guard hasTMDb else { return TMDbCensus() }
        return try await withConnection { c, logger in
            let row = try await c.rows(
                """
                SELECT (SELECT count(*) FILTER (WHERE media_type = 'movie') FROM tmdb_films),
                       (SELECT count(*) FILTER (WHERE media_type = 'tv') FROM tmdb_films),
                       (SELECT count(*) FILTER (WHERE fetched_at < \(staleBefore)) FROM tmdb_films),
                       (SELECT count(*) FILTER (WHERE changed) FROM tmdb_films),
                       (SELECT count(*) FILTER (WHERE tmdb_id IS NOT NULL) FROM tmdb_find),
                       (SELECT count(*) FILTER (WHERE tmdb_id IS NULL) FROM tmdb_find)
                """, logger
            ).first
            guard
                let (movies, series, stale, changed, mapped, none) = try row?.decode(
                    (Int, Int, Int, Int, Int, Int).self)
            else { return TMDbCensus() }
            return TMDbCensus(
                movies: movies, series: series, stale: stale, changed: changed, mapped: mapped, notOnTMDb: none)
        }
    }

    public func tmdbFilms(after ref: TMDbRef?, limit: Int) async throws(StoreError) -> [TMDbFilm] {
        guard hasTMDb else { return [] }
        let sql =
            Self.selectTMDb(.tmdbFilms)
            + " WHERE $1::text IS NULL OR (media_type, tmdb_id) > ($1::text, $2::bigint)"
            + " ORDER BY media_type, tmdb_id LIMIT $3"
        let binds = PostgresBindings(values: [
            .optional(ref?.mediaType.rawValue), .integer(ref?.id ?? 0), .integer(max(0, limit)),
        ])
        return TMDbSQL.films(try await read(.tmdbFilms, sql, binds))
    }

    public func tmdbMappings(after imdbID: String?, limit: Int) async throws(StoreError) -> [TMDbMapping] {
        guard hasTMDb else { return [] }
        let sql =
            Self.selectTMDb(.tmdbFind) + " WHERE $1::text IS NULL OR imdb_id > $1::text ORDER BY imdb_id LIMIT $2"
        let binds = PostgresBindings(values: [.optional(imdbID), .integer(max(0, limit))])
        return TMDbSQL.mappings(try await read(.tmdbFind, sql, binds))
    }

    /// Every column of `table` as a copy reads it (``reading(_:)``), from the table.
    private static func selectTMDb(_ table: CacheTable) -> String {
        "SELECT " + table.columns.map(reading).joined(separator: ", ") + " FROM " + table.rawValue
    }

    /// The values of the rows `sql` reads, every column of `table`.
    private func read(_ table: CacheTable, _ sql: String, _ binds: PostgresBindings) async throws(StoreError)
        -> [[SQLValue]]
    {
        let kinds = table.columns.map(\.kind)
        return try await withConnection { c, logger in
            try await c.rows(PostgresQuery(unsafeSQL: sql, binds: binds), logger).map { try Self.values(of: $0, kinds) }
        }
    }
}
