import Foundation

// The values the store seam (`CacheBackend.swift`) takes and returns, the same for every backend.

// MARK: - Films

/// Results ready to commit together.
public struct WriteBatch: Sendable {
    public var films: [IMDBFilm] = []
    public var lookups: [LookupRecord] = []
    public var aliases: [FilmAlias] = []
    public var titles: [TitleAnswer] = []

    public init(
        films: [IMDBFilm] = [], lookups: [LookupRecord] = [], aliases: [FilmAlias] = [], titles: [TitleAnswer] = []
    ) {
        self.films = films
        self.lookups = lookups
        self.aliases = aliases
        self.titles = titles
    }

    /// Whether there is nothing to write.
    public var isEmpty: Bool { films.isEmpty && lookups.isEmpty && aliases.isEmpty && titles.isEmpty }
    /// Films plus lookups plus aliases plus title answers.
    public var count: Int { films.count + lookups.count + aliases.count + titles.count }
}

/// What OMDb's `t=` answered for a title query: the film's ID, or that it knows no such title.
public struct TitleAnswer: Sendable, Equatable {
    /// The index key: normalized title, year (0: none), type ("": any).
    public var key: TitleKey
    /// The title as the list wrote it.
    public var askedTitle: String
    /// The film OMDb answered with; `nil` when it found none.
    public var imdbID: String?
    /// When the answer came.
    public var answeredAt: Date
    /// For a title OMDb did not find: when to ask again.
    public var nextAttemptAt: Date?

    public init(query: TitleQuery, imdbID: String?, answeredAt: Date, nextAttemptAt: Date? = nil) {
        key = query.key
        askedTitle = query.title
        self.imdbID = imdbID
        self.answeredAt = answeredAt
        self.nextAttemptAt = nextAttemptAt
    }
}

/// An ID OMDb answered with another title's body: IMDb merged `askedID` into `imdbID`.
///
/// The film is stored under `imdbID` only; the alias makes `show` and the plan follow it, so
/// the asked ID is not fetched again while that film is fresh.
public struct FilmAlias: Sendable, Equatable {
    /// The ID that was asked for.
    public var askedID: String
    /// The ID the body names, under which the film is stored.
    public var imdbID: String
    /// When the answer came.
    public var recordedAt: Date

    public init(askedID: String, imdbID: String, recordedAt: Date) {
        self.askedID = askedID
        self.imdbID = imdbID
        self.recordedAt = recordedAt
    }
}

/// Why an ID is in `lookups` instead of `films`.
public enum LookupStatus: String, Sendable {
    /// OMDb said it does not know the ID; a permanent answer, rechecked after its own TTL.
    case notFound = "not_found"
    /// Fetching failed for this run; retried after `next_attempt_at`.
    case failed
}

/// One negative result to record.
public struct LookupRecord: Sendable, Equatable {
    public var imdbID: String
    public var status: LookupStatus
    public var message: String?
    public var httpStatus: Int?
    public var attemptedAt: Date
    public var nextAttemptAt: Date

    public init(
        imdbID: String, status: LookupStatus, message: String?, httpStatus: Int?, attemptedAt: Date,
        nextAttemptAt: Date
    ) {
        self.imdbID = imdbID
        self.status = status
        self.message = message
        self.httpStatus = httpStatus
        self.attemptedAt = attemptedAt
        self.nextAttemptAt = nextAttemptAt
    }
}

/// A stored not-found or failure entry.
public struct LookupEntry: Sendable, Equatable {
    public var imdbID: String
    public var status: LookupStatus
    public var message: String?
    public var httpStatus: Int?
    public var attempts: Int
    public var lastAttemptAt: Date
    public var nextAttemptAt: Date
}

/// What the cache holds for one worklist ID.
public struct CachedState: Sendable, Equatable {
    public var imdbID: String
    /// When the cached film was fetched; `nil` when `films` has no row.
    public var fetchedAt: Date?
    /// The normalizer version of the cached row.
    public var dataVersion: Int?
    /// A not-found or failure entry, if any.
    public var lookupStatus: LookupStatus?
    /// When that entry may be tried again.
    public var nextAttemptAt: Date?
    /// Runs that have asked OMDb for this ID and got a negative answer.
    public var lookupAttempts: Int?
    /// The cached title's age facts; `nil` when `films` has no row.
    public var age: TitleAge?

    public init(
        imdbID: String, fetchedAt: Date? = nil, dataVersion: Int? = nil, lookupStatus: LookupStatus? = nil,
        nextAttemptAt: Date? = nil, lookupAttempts: Int? = nil, age: TitleAge? = nil
    ) {
        self.imdbID = imdbID
        self.fetchedAt = fetchedAt
        self.dataVersion = dataVersion
        self.lookupStatus = lookupStatus
        self.nextAttemptAt = nextAttemptAt
        self.lookupAttempts = lookupAttempts
        self.age = age
    }
}

/// What one import batch did to the cache.
public struct ImportCounts: Sendable, Equatable {
    /// Films the cache did not hold.
    public var added = 0
    /// Films the cache held older (an earlier `fetched_at`), replaced.
    public var updated = 0
    /// Films the cache already held as new or newer, left as they were.
    public var kept = 0

    /// No film yet.
    public init() {}

    /// Adds `other`'s counts to these.
    public static func += (counts: inout ImportCounts, other: ImportCounts) {
        counts.added += other.added
        counts.updated += other.updated
        counts.kept += other.kept
    }
}

// MARK: - Quota ledger

/// One key's quota use on one quota day.
public struct LedgerEntry: Sendable, Equatable {
    public var keyFingerprint: String
    public var day: String
    /// Calls counted so far (reserved before sending).
    public var used: Int
    public var dailyLimit: Int
    /// When OMDb first said the limit was reached that day.
    public var exhaustedAt: Date?
    /// The first successful call after an exhaustion: the observed reset.
    public var resetObservedAt: Date?
}

// MARK: - Posters

/// A film whose poster is due for a request.
public struct PosterDue: Sendable, Equatable {
    /// The poster file held for this same URL, and its validators.
    public struct Held: Sendable, Equatable {
        public var file: String
        public var sha256: String
        public var etag: String?
        public var lastModified: String?
    }

    public var imdbID: String
    /// The film's `Poster` URL.
    public var url: String
    /// What the store holds for this URL already, if anything.
    public var held: Held?
    /// Failed requests in a row for this URL.
    public var failures: Int
}

/// What one poster request came to, ready to record.
public struct PosterOutcome: Sendable, Equatable {
    /// The result, with what the row keeps of it.
    public enum Result: Sendable, Equatable {
        /// A poster downloaded and stored (possibly the same file as before).
        case stored(StoredPoster, contentType: String?, etag: String?, lastModified: String?)
        /// A 304: the held file is still the poster.
        case notModified(etag: String?, lastModified: String?)
        /// 404 or 410: the image host has no such poster; not asked again before `retryAt`.
        case gone(String, retryAt: Date)
        /// Any other failure (status, transport, a body that is not an image, too large).
        case failed(String, retryAt: Date)

        /// Whether the image host said it has no such poster.
        package var isGone: Bool {
            if case .gone = self { return true }
            return false
        }
    }

    public var imdbID: String
    public var url: String
    public var checkedAt: Date
    public var result: Result

    public init(imdbID: String, url: String, checkedAt: Date, result: Result) {
        self.imdbID = imdbID
        self.url = url
        self.checkedAt = checkedAt
        self.result = result
    }
}

/// A film's poster row, as `show` prints it.
public struct PosterEntry: Sendable, Equatable {
    public var imdbID: String
    public var url: String
    /// `stored`, `gone` or `failed`: the last request's outcome.
    public var status: String
    /// The store file holding the poster, relative to the store's root.
    public var file: String?
    public var bytes: Int?
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    public var checkedAt: Date
    public var message: String?
    public var nextAttemptAt: Date?
}
