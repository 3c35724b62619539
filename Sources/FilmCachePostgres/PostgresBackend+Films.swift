import FilmCacheKit
import Foundation
import PostgresNIO

/// Films, negative answers, aliases and title answers: the same statements as the SQLite store's
/// (`CacheStore.write` and its neighbours), in PostgreSQL's dialect.
extension PostgresBackend {
    public func write(_ batch: WriteBatch) async throws(StoreError) {
        guard !batch.isEmpty else { return }
        let filmSQL = filmSQL
        try await transaction { c, logger in
            for film in batch.films {
                try await c.run(filmSQL.upsert(film), logger)
            }
            if !batch.films.isEmpty {
                try await Self.clearAnswered(batch.films.map(\.imdbID), c, logger)
            }
            for alias in batch.aliases {
                try await c.run(
                    """
                    INSERT INTO aliases (asked_id, imdb_id, recorded_at)
                    VALUES (\(alias.askedID), \(alias.imdbID), \(alias.recordedAt.wholeSecond))
                    ON CONFLICT (asked_id) DO UPDATE SET imdb_id = excluded.imdb_id, recorded_at = excluded.recorded_at
                    """, logger)
            }
            if !batch.aliases.isEmpty {
                try await c.run("DELETE FROM lookups WHERE imdb_id = ANY(\(batch.aliases.map(\.askedID)))", logger)
            }
            for answer in batch.titles {
                try await c.run(
                    """
                    INSERT INTO titles (title_key, year, type, asked_title, imdb_id, resolved_at, next_attempt_at)
                    VALUES (\(answer.key.title), \(answer.key.year), \(answer.key.type), \(answer.askedTitle),
                            \(answer.imdbID), \(answer.answeredAt.wholeSecond), \(answer.nextAttemptAt?.wholeSecond))
                    ON CONFLICT (title_key, year, type) DO UPDATE SET
                        asked_title = excluded.asked_title, imdb_id = excluded.imdb_id,
                        resolved_at = excluded.resolved_at, next_attempt_at = excluded.next_attempt_at
                    """, logger)
            }
            for lookup in batch.lookups {
                try await c.run(
                    """
                    INSERT INTO lookups (imdb_id, status, message, http_status, attempts, first_seen_at,
                                         last_attempt_at, next_attempt_at)
                    VALUES (\(lookup.imdbID), \(lookup.status.rawValue), \(lookup.message), \(lookup.httpStatus), 1,
                            \(lookup.attemptedAt.wholeSecond), \(lookup.attemptedAt.wholeSecond),
                            \(lookup.nextAttemptAt.wholeSecond))
                    ON CONFLICT (imdb_id) DO UPDATE SET
                        status = excluded.status, message = excluded.message, http_status = excluded.http_status,
                        attempts = lookups.attempts + 1, last_attempt_at = excluded.last_attempt_at,
                        next_attempt_at = excluded.next_attempt_at
                    """, logger)
            }
        }
    }

    /// Films that arrived clear their IDs' negative answers, and their IDs stop being aliases.
    static func clearAnswered(_ ids: [String], _ c: PostgresConnection, _ logger: Logger) async throws {
        try await c.run("DELETE FROM lookups WHERE imdb_id = ANY(\(ids))", logger)
        try await c.run("DELETE FROM aliases WHERE asked_id = ANY(\(ids))", logger)
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

    /// One text bind.
    static func binds(_ text: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(text)
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

    /// Writes imported films in one transaction; the newer `fetched_at` wins (see `CacheStore.importFilms`).
    public func importFilms(_ films: [IMDBFilm]) async throws(StoreError) -> ImportCounts {
        guard !films.isEmpty else { return ImportCounts() }
        let filmSQL = filmSQL
        return try await transaction { c, logger in
            var counts = ImportCounts()
            var landed: [String] = []
            for film in films {
                // A row back: it landed (inserted, or newer than the cached one); none: the cache's is as new.
                guard let inserted = try await c.rows(filmSQL.upsert(film, ifNewer: true), logger).first else {
                    counts.kept += 1
                    continue
                }
                if try inserted.decode(Bool.self) { counts.added += 1 } else { counts.updated += 1 }
                landed.append(film.imdbID)
            }
            if !landed.isEmpty { try await Self.clearAnswered(landed, c, logger) }
            return counts
        }
    }
}
