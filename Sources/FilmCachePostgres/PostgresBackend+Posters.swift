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

    /// Records the outcome of each poster request in one transaction (see `CacheStore.recordPosters`).
    public func recordPosters(_ outcomes: [PosterOutcome]) async throws(StoreError) {
        guard !outcomes.isEmpty else { return }
        try await transaction { c, logger in
            for outcome in outcomes {
                let checked = outcome.checkedAt.wholeSecond
                switch outcome.result {
                case .stored(let poster, let contentType, let etag, let lastModified):
                    try await c.run(
                        """
                        INSERT INTO posters (imdb_id, url, status, sha256, file, bytes, content_type, etag,
                                             last_modified, stored_at, checked_at, message, attempts, next_attempt_at)
                        VALUES (\(outcome.imdbID), \(outcome.url), 'stored', \(poster.sha256), \(poster.file),
                                \(poster.bytes), \(contentType), \(etag), \(lastModified), \(checked), \(checked),
                                NULL, 0, NULL)
                        ON CONFLICT (imdb_id) DO UPDATE SET
                            url = excluded.url, status = 'stored', sha256 = excluded.sha256, file = excluded.file,
                            bytes = excluded.bytes, content_type = excluded.content_type, etag = excluded.etag,
                            last_modified = excluded.last_modified, stored_at = excluded.stored_at,
                            checked_at = excluded.checked_at, message = NULL, attempts = 0, next_attempt_at = NULL
                        """, logger)
                case .notModified(let etag, let lastModified):
                    try await c.run(
                        """
                        UPDATE posters SET status = 'stored', checked_at = \(checked), message = NULL, attempts = 0,
                            next_attempt_at = NULL, etag = coalesce(\(etag), etag),
                            last_modified = coalesce(\(lastModified), last_modified)
                        WHERE imdb_id = \(outcome.imdbID) AND url = \(outcome.url)
                        """, logger)
                case .gone(let message, let retryAt), .failed(let message, let retryAt):
                    // The file stored for the same URL stays; a failure for a new URL drops the old URL's file.
                    let status = if case .gone = outcome.result { "gone" } else { "failed" }
                    try await c.run(
                        """
                        INSERT INTO posters (imdb_id, url, status, checked_at, message, attempts, next_attempt_at)
                        VALUES (\(outcome.imdbID), \(outcome.url), \(status), \(checked), \(message), 1,
                                \(retryAt.wholeSecond))
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
                        """, logger)
                }
            }
        }
    }

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
