import FilmCacheKit
import Foundation

/// The `posters` table: which store file holds each film's poster, and when to check it again.
extension CacheStore {
    /// Up to `limit` films after `afterID` (in ID order) whose poster is due: never fetched, its URL
    /// changed, stored and last checked at or before `revalidateBefore`, or gone or failed with its
    /// retry time reached by `now`. With `fetchedSince`, only films fetched at or after it.
    public func postersDue(
        after afterID: String, limit: Int, now: Date, revalidateBefore: Date, fetchedSince: Date? = nil
    ) throws(StoreError) -> [PosterDue] {
        try withConnection { c throws(StoreError) in
            try c.db.cached(
                """
                SELECT f.imdb_id, f.poster_url, p.url, p.file, p.etag, p.last_modified, p.attempts, p.sha256
                FROM films AS f LEFT JOIN posters AS p ON p.imdb_id = f.imdb_id
                WHERE f.imdb_id > ?1 AND f.poster_url IS NOT NULL AND (?2 IS NULL OR f.fetched_at >= ?2)
                  AND (p.imdb_id IS NULL OR p.url IS NOT f.poster_url
                       OR (p.status = 'stored' AND p.checked_at <= ?3)
                       OR (p.status <> 'stored' AND p.next_attempt_at <= ?4))
                ORDER BY f.imdb_id LIMIT ?5
                """
            ).query([
                .text(afterID), .optional(fetchedSince.map(Timestamp.format)),
                .text(Timestamp.format(revalidateBefore)),
                .text(Timestamp.format(now)), .integer(limit),
            ]) { row in
                let url = row.text(1) ?? ""
                // Validators only for the same URL: another URL is another image.
                let held: PosterDue.Held? =
                    row.text(2) == url
                    ? row.text(3).map {
                        PosterDue.Held.row(
                            file: $0, sha256: row.text(7) ?? "", etag: row.text(4), lastModified: row.text(5))
                    } : nil
                return PosterDue.row(
                    imdbID: row.text(0) ?? "", url: url, held: held,
                    failures: row.text(2) == url ? row.int(6) ?? 0 : 0)
            }
        }
    }

    /// Records the outcome of each poster request in one transaction.
    public func recordPosters(_ outcomes: [PosterOutcome]) throws(StoreError) {
        guard !outcomes.isEmpty else { return }
        try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                for outcome in outcomes {
                    let checked = Timestamp.format(outcome.checkedAt)
                    switch outcome.result {
                    case .stored(let poster, let contentType, let etag, let lastModified):
                        try c.db.cached(
                            """
                            INSERT INTO posters (imdb_id, url, status, sha256, file, bytes, content_type, etag,
                                                 last_modified, stored_at, checked_at, message, attempts,
                                                 next_attempt_at)
                            VALUES (?1, ?2, 'stored', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, NULL, 0, NULL)
                            ON CONFLICT (imdb_id) DO UPDATE SET
                                url = excluded.url, status = 'stored', sha256 = excluded.sha256, file = excluded.file,
                                bytes = excluded.bytes, content_type = excluded.content_type, etag = excluded.etag,
                                last_modified = excluded.last_modified, stored_at = excluded.stored_at,
                                checked_at = excluded.checked_at, message = NULL, attempts = 0, next_attempt_at = NULL
                            """
                        ).run([
                            .text(outcome.imdbID), .text(outcome.url), .text(poster.sha256), .text(poster.file),
                            .integer(poster.bytes), .optional(contentType), .optional(etag), .optional(lastModified),
                            .text(checked),
                        ])
                    case .notModified(let etag, let lastModified):
                        try c.db.cached(
                            """
                            UPDATE posters SET status = 'stored', checked_at = ?2, message = NULL, attempts = 0,
                                next_attempt_at = NULL, etag = coalesce(?3, etag),
                                last_modified = coalesce(?4, last_modified)
                            WHERE imdb_id = ?1 AND url = ?5
                            """
                        ).run([
                            .text(outcome.imdbID), .text(checked), .optional(etag), .optional(lastModified),
                            .text(outcome.url),
                        ])
                    case .gone(let message, let retryAt), .failed(let message, let retryAt):
                        // The file stored for the same URL stays: an app offline still shows the last
                        // poster it had. A failure for a new URL drops the old URL's file.
                        try c.db.cached(
                            """
                            INSERT INTO posters (imdb_id, url, status, checked_at, message, attempts, next_attempt_at)
                            VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)
                            ON CONFLICT (imdb_id) DO UPDATE SET
                                sha256 = iif(posters.url = excluded.url, posters.sha256, NULL),
                                file = iif(posters.url = excluded.url, posters.file, NULL),
                                bytes = iif(posters.url = excluded.url, posters.bytes, NULL),
                                content_type = iif(posters.url = excluded.url, posters.content_type, NULL),
                                etag = iif(posters.url = excluded.url, posters.etag, NULL),
                                last_modified = iif(posters.url = excluded.url, posters.last_modified, NULL),
                                stored_at = iif(posters.url = excluded.url, posters.stored_at, NULL),
                                attempts = iif(posters.url = excluded.url, posters.attempts + 1, 1),
                                url = excluded.url, status = excluded.status, checked_at = excluded.checked_at,
                                message = excluded.message, next_attempt_at = excluded.next_attempt_at
                            """
                        ).run([
                            .text(outcome.imdbID), .text(outcome.url),
                            .text(outcome.result.isGone ? "gone" : "failed"), .text(checked), .text(message),
                            .text(Timestamp.format(retryAt)),
                        ])
                    }
                }
            }
        }
    }

    /// Whether any film's poster row names the file with this digest.
    public func posterFileIsReferenced(sha256: String) throws(StoreError) -> Bool {
        try withConnection { c throws(StoreError) in
            try c.db.cached("SELECT 1 FROM posters WHERE sha256 = ? LIMIT 1").query([.text(sha256)]) { _ in true }
                .first ?? false
        }
    }

    /// The poster row of one film, if it has one.
    public func poster(_ imdbID: String) throws(StoreError) -> PosterEntry? {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                """
                SELECT url, status, file, bytes, content_type, etag, last_modified, checked_at, message,
                       next_attempt_at
                FROM posters WHERE imdb_id = ?
                """
            ).query([.text(imdbID)]) { row in
                PosterEntry.row(
                    imdbID: imdbID, url: row.text(0) ?? "", status: row.text(1) ?? "", file: row.text(2),
                    bytes: row.int(3), contentType: row.text(4), etag: row.text(5), lastModified: row.text(6),
                    checkedAt: row.text(7).flatMap(Timestamp.parse) ?? .distantPast, message: row.text(8),
                    nextAttemptAt: row.text(9).flatMap(Timestamp.parse))
            }.first
        }
    }
}
