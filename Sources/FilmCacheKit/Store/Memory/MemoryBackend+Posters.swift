import Foundation

/// The poster index in memory.
extension MemoryBackend {
    /// Films after `afterID` whose poster is due: never fetched, its URL changed, stored and checked
    /// at or before `revalidateBefore`, or gone or failed with its retry reached by `now`.
    package func postersDue(after afterID: String, limit: Int, now: Date, revalidateBefore: Date, fetchedSince: Date?)
        async throws(StoreError) -> [PosterDue]
    {
        let (now, revalidateBefore, since) = (
            now.storedSecond, revalidateBefore.storedSecond, fetchedSince?.storedSecond
        )
        var due: [PosterDue] = []
        for film in films.values.sorted(by: { Self.precedes($0.imdbID, $1.imdbID) }) {
            guard due.count < limit else { break }
            guard Self.precedes(afterID, film.imdbID), let url = film.posterURL else { continue }
            if let since, film.lastFetched < since { continue }
            let row = posters[film.imdbID]
            if let row, row.url == url {
                let isDue =
                    row.status == "stored"
                    ? row.checkedAt <= revalidateBefore : row.nextAttemptAt.map { $0 <= now } ?? false
                guard isDue else { continue }
            }
            // Validators only for the same URL: another URL is another image.
            let same = row?.url == url ? row : nil
            let held = same.flatMap { row in
                row.file.map {
                    PosterDue.Held.row(
                        file: $0, sha256: row.sha256 ?? "", etag: row.etag, lastModified: row.lastModified)
                }
            }
            due.append(PosterDue.row(imdbID: film.imdbID, url: url, held: held, failures: same?.attempts ?? 0))
        }
        return due
    }

    package func recordPosters(_ outcomes: [PosterOutcome]) async throws(StoreError) {
        for outcome in outcomes {
            let checked = outcome.checkedAt.storedSecond
            switch outcome.result {
            case .stored(let poster, let contentType, let etag, let lastModified):
                posters[outcome.imdbID] = PosterRow(
                    imdbID: outcome.imdbID, url: outcome.url, status: "stored", sha256: poster.sha256,
                    file: poster.file, bytes: poster.bytes, contentType: contentType, etag: etag,
                    lastModified: lastModified, storedAt: checked, checkedAt: checked)
            case .notModified(let etag, let lastModified):
                guard var row = posters[outcome.imdbID], row.url == outcome.url else { continue }
                row.status = "stored"
                row.checkedAt = checked
                row.message = nil
                row.attempts = 0
                row.nextAttemptAt = nil
                row.etag = etag ?? row.etag
                row.lastModified = lastModified ?? row.lastModified
                posters[outcome.imdbID] = row
            case .gone(let message, let retryAt), .failed(let message, let retryAt):
                // The file stored for the same URL stays: an app offline still shows the last poster it
                // had. A failure for a new URL drops the old URL's file.
                var row =
                    posters[outcome.imdbID]
                    ?? PosterRow(imdbID: outcome.imdbID, url: outcome.url, status: "", checkedAt: checked)
                if row.url == outcome.url, posters[outcome.imdbID] != nil {
                    row.attempts += 1
                } else {
                    row = PosterRow(
                        imdbID: outcome.imdbID, url: outcome.url, status: "", checkedAt: checked, attempts: 1)
                }
                row.status = outcome.result.isGone ? "gone" : "failed"
                row.checkedAt = checked
                row.message = message
                row.nextAttemptAt = retryAt.storedSecond
                posters[outcome.imdbID] = row
            }
        }
    }

    package func posterFileIsReferenced(sha256: String) async throws(StoreError) -> Bool {
        posters.values.contains { $0.sha256 == sha256 }
    }

    package func poster(_ imdbID: String) async throws(StoreError) -> PosterEntry? {
        posters[imdbID].map { row in
            PosterEntry.row(
                imdbID: row.imdbID, url: row.url, status: row.status, file: row.file, bytes: row.bytes,
                contentType: row.contentType, etag: row.etag, lastModified: row.lastModified, checkedAt: row.checkedAt,
                message: row.message, nextAttemptAt: row.nextAttemptAt)
        }
    }
}
