import FilmCacheKit
import Foundation
import PostgresNIO

/// Films, negative answers, aliases and title answers: the same statements as the SQLite store's
/// (`CacheStore.write` and its neighbours), in PostgreSQL's dialect.
extension PostgresBackend {
    /// Writes `batch` atomically, one statement per table (per round where an ID comes twice; see
    /// `Array.rounds(by:)`), in the order `CacheStore.write` writes them; the deletes that follow
    /// an upsert (the answers a film clears, the claims of every ID answered) go in the same
    /// statement as data-modifying `WITH` parts. A batch of films alone, the common one, is then a
    /// single statement, which needs no `BEGIN` and `COMMIT` around it: one round trip.
    public func write(_ batch: WriteBatch) async throws(StoreError) {
        guard !batch.isEmpty else { return }
        // Each statement with the deletes that go with it.
        var statements: [(query: PostgresQuery, deletes: [RowDelete])] = []
        for (index, round) in batch.films.rounds(by: \.imdbID).enumerated() {
            // In ID order, so two writers of the same films never wait on each other in a circle.
            let upsert = filmSQL.upsert(round.sorted { $0.imdbID < $1.imdbID })
            // Films that arrived clear their IDs' negative answers, and their IDs stop being aliases.
            statements.append((upsert, index > 0 ? [] : Self.answeredBy(batch.films.map(\.imdbID))))
        }
        for (index, round) in batch.aliases.rounds(by: \.askedID).enumerated() {
            // An ID that turned out an alias has no negative answer.
            statements.append(
                (
                    Self.upsertAliases(round),
                    index > 0 ? [] : [RowDelete("lookups", "imdb_id", batch.aliases.map(\.askedID))]
                ))
        }
        for round in batch.titles.rounds(by: \.key) {
            statements.append((Self.upsertTitles(round), []))
        }
        for round in batch.lookups.rounds(by: \.imdbID) {
            statements.append((Self.upsertLookups(round), []))
        }
        // An ID answered needs no claim: no run is granted it again (see `claim`). Dropping the
        // claim here keeps a run's claims to its IDs in flight, and so each claim's renewal short.
        let answered =
            batch.films.map(\.imdbID) + batch.aliases.map(\.askedID) + batch.lookups.map(\.imdbID)
            + batch.titles.map(\.key.claimKey)
        statements[statements.count - 1].deletes.append(RowDelete("claims", "imdb_id", answered))
        let all = statements.map { $0.query.deleting($0.deletes) }
        if all.count == 1 {
            try await withConnection { c, logger in try await c.run(all[0], logger) }
        } else {
            try await transaction { c, logger in
                for statement in all { try await c.run(statement, logger) }
            }
        }
    }

    /// The upsert of `aliases`, no asked ID twice.
    private static func upsertAliases(_ aliases: [FilmAlias]) -> PostgresQuery {
        var rows = ColumnArrays(columns: 3)
        for alias in aliases { rows.append([alias.askedID, alias.imdbID, ColumnArrays.seconds(alias.recordedAt)]) }
        return PostgresQuery(
            unsafeSQL: """
                INSERT INTO aliases (asked_id, imdb_id, recorded_at)
                SELECT u.asked_id, u.imdb_id, to_timestamp(u.recorded_at::double precision)
                FROM \(ColumnArrays.unnest(["asked_id", "imdb_id", "recorded_at"]))
                ON CONFLICT (asked_id) DO UPDATE SET imdb_id = excluded.imdb_id, recorded_at = excluded.recorded_at
                """, binds: rows.binds)
    }

    /// The upsert of title answers, no key twice.
    private static func upsertTitles(_ answers: [TitleAnswer]) -> PostgresQuery {
        let columns = ["title_key", "year", "type", "asked_title", "imdb_id", "resolved_at", "next_attempt_at"]
        var rows = ColumnArrays(columns: columns.count)
        for answer in answers {
            rows.append([
                answer.key.title, String(answer.key.year), answer.key.type, answer.askedTitle, answer.imdbID,
                ColumnArrays.seconds(answer.answeredAt), ColumnArrays.seconds(answer.nextAttemptAt),
            ])
        }
        return PostgresQuery(
            unsafeSQL: """
                INSERT INTO titles (title_key, year, type, asked_title, imdb_id, resolved_at, next_attempt_at)
                SELECT u.title_key, u.year::integer, u.type, u.asked_title, u.imdb_id,
                       to_timestamp(u.resolved_at::double precision), to_timestamp(u.next_attempt_at::double precision)
                FROM \(ColumnArrays.unnest(columns))
                ON CONFLICT (title_key, year, type) DO UPDATE SET
                    asked_title = excluded.asked_title, imdb_id = excluded.imdb_id,
                    resolved_at = excluded.resolved_at, next_attempt_at = excluded.next_attempt_at
                WHERE \(TitleIndexRow.replacesSQL)
                """, binds: rows.binds)
    }

    /// The upsert of negative answers, no ID twice: a new one counts one attempt, a known one one more.
    private static func upsertLookups(_ lookups: [LookupRecord]) -> PostgresQuery {
        let columns = ["imdb_id", "status", "message", "http_status", "attempted_at", "next_attempt_at"]
        var rows = ColumnArrays(columns: columns.count)
        for lookup in lookups {
            rows.append([
                lookup.imdbID, lookup.status.rawValue, lookup.message, lookup.httpStatus.map(String.init),
                ColumnArrays.seconds(lookup.attemptedAt), ColumnArrays.seconds(lookup.nextAttemptAt),
            ])
        }
        return PostgresQuery(
            unsafeSQL: """
                INSERT INTO lookups (imdb_id, status, message, http_status, attempts, first_seen_at,
                                     last_attempt_at, next_attempt_at)
                SELECT u.imdb_id, u.status, u.message, u.http_status::integer, 1,
                       to_timestamp(u.attempted_at::double precision), to_timestamp(u.attempted_at::double precision),
                       to_timestamp(u.next_attempt_at::double precision)
                FROM \(ColumnArrays.unnest(columns))
                ON CONFLICT (imdb_id) DO UPDATE SET
                    status = excluded.status, message = excluded.message, http_status = excluded.http_status,
                    attempts = lookups.attempts + 1, last_attempt_at = excluded.last_attempt_at,
                    next_attempt_at = excluded.next_attempt_at
                """, binds: rows.binds)
    }

    /// What films of `ids` that arrived clear: their IDs' negative answers, and their IDs as aliases.
    static func answeredBy(_ ids: [String]) -> [RowDelete] {
        [RowDelete("lookups", "imdb_id", ids), RowDelete("aliases", "asked_id", ids)]
    }

    /// Films that arrived clear their IDs' negative answers, and their IDs stop being aliases.
    static func clearAnswered(_ ids: [String], _ c: PostgresConnection, _ logger: Logger) async throws {
        for delete in answeredBy(ids) {
            try await c.run(PostgresQuery(unsafeSQL: delete.sql(bind: 1), binds: binds(delete.ids)), logger)
        }
    }

    public func film(_ imdbID: String) async throws(StoreError) -> IMDBFilm? {
        let select = filmSQL.select
        return try await withConnection { c, logger in
            try await c.rows(
                PostgresQuery(unsafeSQL: select + " WHERE imdb_id = $1", binds: Self.binds(imdbID)), logger
            )
            .first.map(FilmSQL.film)
        }
    }

    public func films(_ imdbIDs: [String]) async throws(StoreError) -> [IMDBFilm] {
        guard !imdbIDs.isEmpty else { return [] }
        let select = filmSQL.select
        return try await withConnection { c, logger in
            try await c.rows(
                PostgresQuery(unsafeSQL: select + " WHERE imdb_id = ANY($1::text[])", binds: Self.binds(imdbIDs)),
                logger
            ).map(FilmSQL.film)
        }
    }

    public func films(after afterID: String, limit: Int, since: Date?) async throws(StoreError) -> [IMDBFilm] {
        let select = filmSQL.select
        return try await withConnection { c, logger in
            var binds = PostgresBindings()
            binds.append(afterID)
            binds.append(since?.wholeSecond)
            binds.append(limit)
            return try await c.rows(
                PostgresQuery(
                    unsafeSQL: select
                        + " WHERE imdb_id > $1 AND ($2::timestamptz IS NULL OR fetched_at >= $2) ORDER BY imdb_id LIMIT $3",
                    binds: binds), logger
            ).map(FilmSQL.film)
        }
    }

    /// One bind.
    static func binds(_ value: some PostgresNonThrowingEncodable) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(value)
        return binds
    }

    public func lookup(_ imdbID: String) async throws(StoreError) -> LookupEntry? {
        try await withConnection { c, logger in
            try await c.rows(
                """
                SELECT status, message, http_status, attempts, last_attempt_at, next_attempt_at FROM lookups
                WHERE imdb_id = \(imdbID)
                """, logger
            ).first.map { row in
                let (status, message, httpStatus, attempts, last, next) = try row.decode(
                    (String, String?, Int?, Int, Date, Date).self)
                return LookupEntry.row(
                    imdbID: imdbID, status: LookupStatus(rawValue: status) ?? .failed, message: message,
                    httpStatus: httpStatus, attempts: attempts, lastAttemptAt: last, nextAttemptAt: next)
            }
        }
    }

    public func aliasTarget(of imdbID: String) async throws(StoreError) -> String? {
        try await withConnection { c, logger in
            try await c.rows("SELECT imdb_id FROM aliases WHERE asked_id = \(imdbID)", logger).first?.decode(
                String.self)
        }
    }

    public func filmCount() async throws(StoreError) -> Int {
        try await withConnection { c, logger in
            try await c.rows("SELECT count(*) FROM films", logger).first?.decode(Int.self) ?? 0
        }
    }

    /// Writes imported films in one transaction, one statement per round of distinct IDs; the
    /// newer `fetched_at` wins (see `CacheStore.importFilms`).
    public func importFilms(_ films: [IMDBFilm], now: Date) async throws(StoreError) -> ImportCounts {
        guard !films.isEmpty else { return ImportCounts() }
        let filmSQL = filmSQL
        return try await transaction { c, logger in
            var counts = ImportCounts()
            var landed: [String] = []
            for round in films.rounds(by: \.imdbID) {
                // A row back: it landed (inserted, or newer than the cached one); none: the cache's is as new.
                let rows = try await c.rows(
                    filmSQL.upsert(round.sorted { $0.imdbID < $1.imdbID }, ifNewerAt: now), logger)
                for row in rows {
                    let (id, inserted) = try row.decode((String, Bool).self)
                    if inserted { counts.added += 1 } else { counts.updated += 1 }
                    landed.append(id)
                }
                counts.kept += round.count - rows.count
            }
            if !landed.isEmpty { try await Self.clearAnswered(landed, c, logger) }
            return counts
        }
    }
}

/// A delete of the rows of `table` whose `column` is one of `ids`.
struct RowDelete {
    let table: String
    let column: String
    let ids: [String]

    init(_ table: String, _ column: String, _ ids: [String]) {
        self.table = table
        self.column = column
        self.ids = ids
    }

    /// The `DELETE`, its IDs bound as `$bind`.
    func sql(bind: Int) -> String { "DELETE FROM \(table) WHERE \(column) = ANY($\(bind)::text[])" }
}

extension PostgresQuery {
    /// This statement with deletes of the rows whose `column` is one of `ids`, table by table, as
    /// one statement: `WITH s0 AS (this), s1 AS (DELETE …) DELETE …`. Its parts run on one snapshot
    /// and commit together; each table appears once, so no row is changed twice.
    func deleting(_ deletes: [RowDelete]) -> PostgresQuery {
        var query = self
        let statements = deletes.map { delete in
            query.binds.append(delete.ids)
            return delete.sql(bind: query.binds.count)
        }
        guard let last = statements.last else { return query }
        let parts = ["s0 AS (\(sql))"] + statements.dropLast().enumerated().map { "s\($0 + 1) AS (\($1))" }
        query.sql = "WITH \(parts.joined(separator: ", ")) \(last)"
        return query
    }
}
