import Foundation

// The store's result types as the other backends of this package (FilmCachePostgres) build them from
// their own rows: the memberwise initializers, which stay internal, by another name.

extension LookupEntry {
    /// A not-found or failure entry as a backend read it.
    package static func row(
        imdbID: String, status: LookupStatus, message: String?, httpStatus: Int?, attempts: Int, lastAttemptAt: Date,
        nextAttemptAt: Date
    ) -> LookupEntry {
        LookupEntry(
            imdbID: imdbID, status: status, message: message, httpStatus: httpStatus, attempts: attempts,
            lastAttemptAt: lastAttemptAt, nextAttemptAt: nextAttemptAt)
    }
}

extension LedgerEntry {
    /// One key's day as a backend read it.
    package static func row(
        keyFingerprint: String, day: String, used: Int, dailyLimit: Int, exhaustedAt: Date?, resetObservedAt: Date?
    ) -> LedgerEntry {
        LedgerEntry(
            keyFingerprint: keyFingerprint, day: day, used: used, dailyLimit: dailyLimit, exhaustedAt: exhaustedAt,
            resetObservedAt: resetObservedAt)
    }
}

extension PosterDue {
    /// A film whose poster is due, as a backend read it.
    package static func row(imdbID: String, url: String, held: Held?, failures: Int) -> PosterDue {
        PosterDue(imdbID: imdbID, url: url, held: held, failures: failures)
    }
}

extension PosterDue.Held {
    /// The file held for the same URL, as a backend read it.
    package static func row(file: String, sha256: String, etag: String?, lastModified: String?) -> PosterDue.Held {
        PosterDue.Held(file: file, sha256: sha256, etag: etag, lastModified: lastModified)
    }
}

extension PosterEntry {
    /// A poster row as a backend read it.
    package static func row(
        imdbID: String, url: String, status: String, file: String?, bytes: Int?, contentType: String?, etag: String?,
        lastModified: String?, checkedAt: Date, message: String?, nextAttemptAt: Date?
    ) -> PosterEntry {
        PosterEntry(
            imdbID: imdbID, url: url, status: status, file: file, bytes: bytes, contentType: contentType, etag: etag,
            lastModified: lastModified, checkedAt: checkedAt, message: message, nextAttemptAt: nextAttemptAt)
    }
}
