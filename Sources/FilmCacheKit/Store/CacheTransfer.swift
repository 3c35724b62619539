import Foundation

/// Moving a whole cache from one database to another, whatever their backends (`filmcache db copy`):
/// every table read in short pages in the order of its key, each page merged in one transaction.
///
/// Merging is idempotent: merging the same page twice leaves the database as once. What wins when
/// the target already holds a row with the same key is the table's rule (``CacheTable``).
public protocol CacheTransfer: Sendable {
    /// The number of rows in `table`.
    func rowCount(_ table: CacheTable) async throws(StoreError) -> Int
    /// Up to `limit` rows of `table` after `cursor`, in the order of the table's key: one short read.
    func transferPage(_ table: CacheTable, after cursor: TransferCursor, limit: Int) async throws(StoreError)
        -> TransferPage
    /// Merges another database's rows in one transaction, by the table's rule: rows added (the key
    /// was not held), updated (the held row gave way) and kept (the held row won).
    ///
    /// Films merge as ``FilmStore/importFilms(_:now:)`` imports them at `now`.
    func merge(_ page: TransferPage, now: Date) async throws(StoreError) -> ImportCounts
    /// A name that is the same by whatever path or URL the database is reached (a file's device and
    /// inode; a server's start time and the database's oid): two backends with one identity are one
    /// database.
    func databaseIdentity() async throws(StoreError) -> String
}

/// The tables a copy moves, in the order it moves them, each with its merge rule.
///
/// Films go first: a film that lands clears the target's negative answer and alias under its ID (as
/// a fetched film does), and the source's own lookups and aliases then follow. `claims` (the shared
/// tier's leases for one night, and `serve`'s flights) are not copied.
public enum CacheTable: String, CaseIterable, Sendable {
    /// The newer `fetched_at` wins, as in `import`.
    case films
    /// The later `last_attempt_at` wins.
    case lookups
    /// The later `recorded_at` wins.
    case aliases
    /// The title index: the later `resolved_at` wins.
    case titles
    /// The poster index: the later `checked_at` wins.
    case posters
    /// Per key and quota day: the larger `used` and `daily_limit`, the earlier `exhausted_at` and
    /// `reset_observed_at`. Neither database's count is ever lowered: over-count, never under-count.
    case quotaLedger = "quota_ledger"
    /// Per key and minute: the larger `calls`.
    case quotaCalls = "quota_calls"
    /// A run is the one of the target that has the same key, the same `started_at` and the same place
    /// (in id order) among the runs that started in that second with that key. A run the target
    /// lacks is added, under its own id when the target has no run with that id; one the target holds
    /// unfinished is completed from a finished one; otherwise the target's is kept.
    case runs
    /// `serve`'s stored answers to queries: the later `answered_at` wins.
    case answers
    /// How often apps asked for each film: the larger `requests` and the later `last_requested_at`
    /// (merging the same rows twice counts nothing twice).
    case demand
    /// TMDb's `/find` answers by IMDb ID: the later `checked_at` wins.
    case tmdbFind = "tmdb_find"
    /// TMDb's entries: the later `fetched_at` wins, as in `import` (a held entry stamped more than
    /// ``FreshnessPolicy/clockSkew`` after the copy's now counts as older than any); the same fetch
    /// arriving with the changes feed's mark gives the held one the mark.
    case tmdbFilms = "tmdb_films"
    /// How far the changes feed was read: the later `synced_through`.
    case tmdbSync = "tmdb_sync"
    /// TMDb calls per day and kind: the larger `calls`.
    case tmdbCalls = "tmdb_calls"

    /// Whether the table is one `serve` added (schema version 8), absent from older databases.
    package var isServes: Bool { addedBy == .serveAnswers }

    /// The schema step that added the table: a database older than it has none (a read-only open
    /// of one reads the table as empty).
    package var addedBy: SchemaStep {
        switch self {
        case .films, .lookups, .quotaLedger, .runs: .createCache
        case .aliases: .aliases
        case .titles: .titleIndex
        case .posters: .posters
        case .quotaCalls: .callsByMinute
        case .answers, .demand: .serveAnswers
        case .tmdbFind, .tmdbFilms, .tmdbSync, .tmdbCalls: .tmdb
        }
    }
}

/// Where a page of a table starts: after the row with this key, or at the table's start.
public enum TransferCursor: Sendable, Equatable {
    /// The first page.
    case start
    /// After this ID: `films`, `lookups`, `aliases` (the asked ID), `posters`, `demand`, `tmdb_find`;
    /// after this query: `answers`.
    case id(String)
    /// After this title key: `titles`.
    case title(TitleKey)
    /// After this key's quota day (`YYYY-MM-DD`): `quota_ledger`.
    case day(key: String, day: String)
    /// After this key's minute: `quota_calls`.
    case minute(key: String, minute: Int)
    /// After this run id: `runs`.
    case run(Int)
    /// After this TMDb entry: `tmdb_films`.
    case tmdb(TMDbRef)
    /// After this day's kind of call: `tmdb_calls`.
    case dayKind(day: String, kind: String)
    /// After the row with this number: `tmdb_sync` (its one row is 1).
    case row(Int)
}

/// One page of one table's rows, in the backend-neutral form both backends read and write.
public enum TransferPage: Sendable, Equatable {
    case films([IMDBFilm])
    case lookups([LookupRow])
    case aliases([FilmAlias])
    case titles([TitleAnswer])
    case posters([PosterRow])
    case quotaLedger([LedgerEntry])
    case quotaCalls([MinuteCalls])
    case runs([RunRow])
    case answers([CachedAnswer])
    /// Demand rows (no titles).
    case demand([DemandEntry])
    case tmdbFind([TMDbMapping])
    case tmdbFilms([TMDbFilmRow])
    /// The changes feed's progress: at most one instant.
    case tmdbSync([Date])
    case tmdbCalls([TMDbDayCalls])

    /// The table the rows are from.
    public var table: CacheTable {
        switch self {
        case .films: .films
        case .lookups: .lookups
        case .aliases: .aliases
        case .titles: .titles
        case .posters: .posters
        case .quotaLedger: .quotaLedger
        case .quotaCalls: .quotaCalls
        case .runs: .runs
        case .answers: .answers
        case .demand: .demand
        case .tmdbFind: .tmdbFind
        case .tmdbFilms: .tmdbFilms
        case .tmdbSync: .tmdbSync
        case .tmdbCalls: .tmdbCalls
        }
    }

    /// The number of rows.
    public var count: Int {
        switch self {
        case .films(let rows): rows.count
        case .lookups(let rows): rows.count
        case .aliases(let rows): rows.count
        case .titles(let rows): rows.count
        case .posters(let rows): rows.count
        case .quotaLedger(let rows): rows.count
        case .quotaCalls(let rows): rows.count
        case .runs(let rows): rows.count
        case .answers(let rows): rows.count
        case .demand(let rows): rows.count
        case .tmdbFind(let rows): rows.count
        case .tmdbFilms(let rows): rows.count
        case .tmdbSync(let rows): rows.count
        case .tmdbCalls(let rows): rows.count
        }
    }

    /// Where the next page starts: after this page's last row; `nil` when the page is empty.
    public var next: TransferCursor? {
        switch self {
        case .films(let rows): rows.last.map { .id($0.imdbID) }
        case .lookups(let rows): rows.last.map { .id($0.imdbID) }
        case .aliases(let rows): rows.last.map { .id($0.askedID) }
        case .titles(let rows): rows.last.map { .title($0.key) }
        case .posters(let rows): rows.last.map { .id($0.imdbID) }
        case .quotaLedger(let rows): rows.last.map { .day(key: $0.keyFingerprint, day: $0.day) }
        case .quotaCalls(let rows): rows.last.map { .minute(key: $0.keyFingerprint, minute: $0.minute) }
        case .runs(let rows): rows.last.map { .run($0.record.id) }
        case .answers(let rows): rows.last.map { .id($0.query) }
        case .demand(let rows): rows.last.map { .id($0.imdbID) }
        case .tmdbFind(let rows): rows.last.map { .id($0.imdbID) }
        case .tmdbFilms(let rows): rows.last.map { .tmdb($0.film.ref) }
        case .tmdbSync(let rows): rows.isEmpty ? nil : .row(1)
        case .tmdbCalls(let rows): rows.last.map { .dayKind(day: $0.day, kind: $0.kind) }
        }
    }
}

/// A `tmdb_films` row: the entry and whether the changes feed named it since its fetch.
public struct TMDbFilmRow: Sendable, Equatable {
    public var film: TMDbFilm
    public var changed: Bool

    public init(film: TMDbFilm, changed: Bool = false) {
        self.film = film
        self.changed = changed
    }
}

/// A `tmdb_calls` row: the calls of one kind made to TMDb on one UTC day (`YYYY-MM-DD`).
public struct TMDbDayCalls: Sendable, Equatable {
    public var day: String
    public var kind: String
    public var calls: Int

    public init(day: String, kind: String, calls: Int) {
        self.day = day
        self.kind = kind
        self.calls = calls
    }
}

/// A `lookups` row, every column of it.
public struct LookupRow: Sendable, Equatable {
    public var imdbID: String
    public var status: LookupStatus
    public var message: String?
    public var httpStatus: Int?
    /// Runs that recorded this ID.
    public var attempts: Int
    public var firstSeenAt: Date
    public var lastAttemptAt: Date
    /// The planner leaves the ID alone until then.
    public var nextAttemptAt: Date

    public init(
        imdbID: String, status: LookupStatus, message: String?, httpStatus: Int?, attempts: Int, firstSeenAt: Date,
        lastAttemptAt: Date, nextAttemptAt: Date
    ) {
        self.imdbID = imdbID
        self.status = status
        self.message = message
        self.httpStatus = httpStatus
        self.attempts = attempts
        self.firstSeenAt = firstSeenAt
        self.lastAttemptAt = lastAttemptAt
        self.nextAttemptAt = nextAttemptAt
    }
}

/// A `posters` row, every column of it.
public struct PosterRow: Sendable, Equatable {
    public var imdbID: String
    public var url: String
    /// `stored`, `gone` or `failed`.
    public var status: String
    public var sha256: String?
    /// The store file, relative to the store.
    public var file: String?
    public var bytes: Int?
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    public var storedAt: Date?
    public var checkedAt: Date
    public var message: String?
    /// Failed requests in a row for this URL.
    public var attempts: Int
    public var nextAttemptAt: Date?

    public init(
        imdbID: String, url: String, status: String, sha256: String? = nil, file: String? = nil, bytes: Int? = nil,
        contentType: String? = nil, etag: String? = nil, lastModified: String? = nil, storedAt: Date? = nil,
        checkedAt: Date, message: String? = nil, attempts: Int = 0, nextAttemptAt: Date? = nil
    ) {
        self.imdbID = imdbID
        self.url = url
        self.status = status
        self.sha256 = sha256
        self.file = file
        self.bytes = bytes
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.storedAt = storedAt
        self.checkedAt = checkedAt
        self.message = message
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
    }
}

/// A `quota_calls` row: one key's calls counted in one minute (since 1970 UTC).
public struct MinuteCalls: Sendable, Equatable {
    public var keyFingerprint: String
    public var minute: Int
    public var calls: Int

    public init(keyFingerprint: String, minute: Int, calls: Int) {
        self.keyFingerprint = keyFingerprint
        self.minute = minute
        self.calls = calls
    }
}

/// A `runs` row, every column of it, and its place among the runs that started in the same second
/// with the same key (what makes it the same run in another database: ``CacheTable/runs``).
public struct RunRow: Sendable, Equatable {
    public var record: RunRecord
    /// Calls the ledger counted for the run as it reserved them.
    public var reservedCalls: Int
    /// Runs of its database with the same `started_at` and key and a lower id.
    public var sameStartBefore: Int

    public init(record: RunRecord, reservedCalls: Int, sameStartBefore: Int = 0) {
        self.record = record
        self.reservedCalls = reservedCalls
        self.sameStartBefore = sameStartBefore
    }
}

extension TitleAnswer {
    /// A `titles` row as it stands.
    public init(key: TitleKey, askedTitle: String, imdbID: String?, answeredAt: Date, nextAttemptAt: Date?) {
        self.key = key
        self.askedTitle = askedTitle
        self.imdbID = imdbID
        self.answeredAt = answeredAt
        self.nextAttemptAt = nextAttemptAt
    }
}
