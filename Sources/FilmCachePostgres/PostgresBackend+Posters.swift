import FilmCacheKit
import Foundation
import PostgresNIO

/// The poster index: the same rules as `CacheStore+Posters.swift`.
extension PostgresBackend {
    /// Up to `limit` films after `afterID` whose poster is due (see `CacheStore.postersDue`).
    public func postersDue(after afterID: String, limit: Int, now: Date, revalidateBefore: Date, fetchedSince: Date?)
        async throws(StoreError) -> [PosterDue]
    {
        try await withConnection { c, logger in
            try await c.rows(
                """
                SELECT f.imdb_id, f.poster_url, p.url, p.file, p.etag, p.last_modified, p.attempts, p.sha256
                FROM films AS f LEFT JOIN posters AS p ON p.imdb_id = f.imdb_id
                WHERE f.imdb_id > \(afterID) AND f.poster_url IS NOT NULL
                  AND (\(fetchedSince?.wholeSecond)::timestamptz IS NULL OR f.fetched_at >= \(fetchedSince?.wholeSecond))
                  AND (p.imdb_id IS NULL OR p.url IS DISTINCT FROM f.poster_url
                       OR (p.status = 'stored' AND p.checked_at <= \(revalidateBefore.wholeSecond))
                       OR (p.status <> 'stored' AND p.next_attempt_at <= \(now.wholeSecond)))
                ORDER BY f.imdb_id LIMIT \(limit)
                """, logger
            ).map { row in
                let (id, url, heldURL, file, etag, lastModified, attempts, sha256) = try row.decode(
                    (String, String, String?, String?, String?, String?, Int?, String?).self)
                // Validators only for the same URL: another URL is another image.
                let held =
                    heldURL == url
                    ? file.map {
                        PosterDue.Held.row(file: $0, sha256: sha256 ?? "", etag: etag, lastModified: lastModified)
                    }
                    : nil
                return PosterDue.row(imdbID: id, url: url, held: held, failures: heldURL == url ? attempts ?? 0 : 0)
            }
        }
    }

    /// Records the outcome of each poster request in one transaction (see `CacheStore.recordPosters`):
    /// one statement per kind of outcome, per round where a film comes twice (see `Array.rounds(by:)`).
    public func recordPosters(_ outcomes: [PosterOutcome]) async throws(StoreError) {
        guard !outcomes.isEmpty else { return }
        try await transaction { c, logger in
            for round in outcomes.rounds(by: \.imdbID) {
                // A film comes once in a round, so the order of the kinds within it does not matter.
                var stored = ColumnArrays(columns: Self.storedColumns.count)
                var notModified = ColumnArrays(columns: Self.notModifiedColumns.count)
                var missed = ColumnArrays(columns: Self.missedColumns.count)
                for outcome in round {
                    let checked = ColumnArrays.seconds(outcome.checkedAt)
                    switch outcome.result {
                    case .stored(let poster, let contentType, let etag, let lastModified):
                        stored.append([
                            outcome.imdbID, outcome.url, poster.sha256, poster.file, String(poster.bytes), contentType,
                            etag, lastModified, checked,
                        ])
                    case .notModified(let etag, let lastModified):
                        notModified.append([outcome.imdbID, outcome.url, checked, etag, lastModified])
                    case .gone(let message, let retryAt), .failed(let message, let retryAt):
                        let status = if case .gone = outcome.result { "gone" } else { "failed" }
                        missed.append([
                            outcome.imdbID, outcome.url, status, checked, message, ColumnArrays.seconds(retryAt),
                        ])
                    }
                }
                if stored.count > 0 {
                    try await c.run(PostgresQuery(unsafeSQL: Self.recordStored, binds: stored.binds), logger)
                }
                if notModified.count > 0 {
                    try await c.run(PostgresQuery(unsafeSQL: Self.recordNotModified, binds: notModified.binds), logger)
                }
                if missed.count > 0 {
                    try await c.run(PostgresQuery(unsafeSQL: Self.recordMissed, binds: missed.binds), logger)
                }
            }
        }
    }

    private static let storedColumns = [
        "imdb_id", "url", "sha256", "file", "bytes", "content_type", "etag", "last_modified", "checked_at",
    ]

    /// Posters downloaded and stored: the row replaced.
    private static let recordStored = """
        INSERT INTO posters (imdb_id, url, status, sha256, file, bytes, content_type, etag,
                             last_modified, stored_at, checked_at, message, attempts, next_attempt_at)
        SELECT u.imdb_id, u.url, 'stored', u.sha256, u.file, u.bytes::bigint, u.content_type, u.etag, u.last_modified,
               to_timestamp(u.checked_at::double precision), to_timestamp(u.checked_at::double precision), NULL, 0, NULL
        FROM \(ColumnArrays.unnest(storedColumns))
        ON CONFLICT (imdb_id) DO UPDATE SET
            url = excluded.url, status = 'stored', sha256 = excluded.sha256, file = excluded.file,
            bytes = excluded.bytes, content_type = excluded.content_type, etag = excluded.etag,
            last_modified = excluded.last_modified, stored_at = excluded.stored_at,
            checked_at = excluded.checked_at, message = NULL, attempts = 0, next_attempt_at = NULL
        """

    private static let notModifiedColumns = ["imdb_id", "url", "checked_at", "etag", "last_modified"]

    /// 304s: the row for the same URL marked checked, its validators refreshed where the answer sent new ones.
    private static let recordNotModified = """
        UPDATE posters AS p SET status = 'stored', checked_at = to_timestamp(u.checked_at::double precision),
            message = NULL, attempts = 0, next_attempt_at = NULL, etag = coalesce(u.etag, p.etag),
            last_modified = coalesce(u.last_modified, p.last_modified)
        FROM \(ColumnArrays.unnest(notModifiedColumns))
        WHERE p.imdb_id = u.imdb_id AND p.url = u.url
        """

    private static let missedColumns = ["imdb_id", "url", "status", "checked_at", "message", "next_attempt_at"]

    /// Posters gone or failed. The file stored for the same URL stays; a failure for a new URL drops
    /// the old URL's file.
    private static let recordMissed = """
        INSERT INTO posters (imdb_id, url, status, checked_at, message, attempts, next_attempt_at)
        SELECT u.imdb_id, u.url, u.status, to_timestamp(u.checked_at::double precision), u.message, 1,
               to_timestamp(u.next_attempt_at::double precision)
        FROM \(ColumnArrays.unnest(missedColumns))
        ON CONFLICT (imdb_id) DO UPDATE SET
            sha256 = CASE WHEN posters.url = excluded.url THEN posters.sha256 END,
            file = CASE WHEN posters.url = excluded.url THEN posters.file END,
            bytes = CASE WHEN posters.url = excluded.url THEN posters.bytes END,
            content_type = CASE WHEN posters.url = excluded.url THEN posters.content_type END,
            etag = CASE WHEN posters.url = excluded.url THEN posters.etag END,
            last_modified = CASE WHEN posters.url = excluded.url THEN posters.last_modified END,
            stored_at = CASE WHEN posters.url = excluded.url THEN posters.stored_at END,
            attempts = CASE WHEN posters.url = excluded.url THEN posters.attempts + 1 ELSE 1 END,
            url = excluded.url, status = excluded.status, checked_at = excluded.checked_at,
            message = excluded.message, next_attempt_at = excluded.next_attempt_at
        """

    public func posterFileIsReferenced(sha256: String) async throws(StoreError) -> Bool {
        try await withConnection { c, logger in
            try await !c.rows("SELECT 1 FROM posters WHERE sha256 = \(sha256) LIMIT 1", logger).isEmpty
        }
    }

    public func poster(_ imdbID: String) async throws(StoreError) -> PosterEntry? {
        try await withConnection { c, logger in
            try await c.rows(
                """
                SELECT url, status, file, bytes, content_type, etag, last_modified, checked_at, message,
                       next_attempt_at
                FROM posters WHERE imdb_id = \(imdbID)
                """, logger
            ).first.map { row in
                let (url, status, file, bytes, contentType, etag, lastModified, checked, message, next) =
                    try row.decode(
                        (String, String, String?, Int?, String?, String?, String?, Date, String?, Date?).self)
                return PosterEntry.row(
                    imdbID: imdbID, url: url, status: status, file: file, bytes: bytes, contentType: contentType,
                    etag: etag, lastModified: lastModified, checkedAt: checked, message: message, nextAttemptAt: next)
            }
        }
    }
}
