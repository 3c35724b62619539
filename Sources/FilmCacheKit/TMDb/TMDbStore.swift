import Foundation

/// What the cache keeps of TMDb beside the OMDb films: the `/find` mapping of IMDb IDs (negative
/// answers too), the entries' bodies and columns, the changes feed's progress and the calls made
/// each day. Every operation is one transaction.
public protocol TMDbStore: Sendable {
    /// Commits mappings and entries in one transaction. An entry written clears its changed mark.
    /// With `newerWins` (import, copy) a stored entry or mapping stamped later than the one written
    /// is kept; otherwise (a fetch) the written one replaces it.
    func writeTMDb(_ batch: TMDbBatch) async throws(StoreError) -> TMDbWriteCounts
    /// What the cache knows of each of `imdbIDs`, one state per distinct ID in the order given.
    func tmdbStates(of imdbIDs: [String]) async throws(StoreError) -> [TMDbState]
    /// The stored entry, or `nil`.
    func tmdbFilm(_ ref: TMDbRef) async throws(StoreError) -> TMDbFilm?
    /// The mapping of one IMDb ID, or `nil` when `/find` was never asked.
    func tmdbMapping(_ imdbID: String) async throws(StoreError) -> TMDbMapping?
    /// Marks those of `refs` the cache holds as changed upstream (due at the next warm whatever
    /// their age); returns how many stored entries were marked.
    func markTMDbChanged(_ refs: [TMDbRef]) async throws(StoreError) -> Int
    /// The end of the latest window of the changes feed a warm read to the last page, if any.
    func tmdbChangesSyncedThrough() async throws(StoreError) -> Date?
    /// Records that the changes feed was read through `instant`.
    func setTMDbChangesSynced(through instant: Date) async throws(StoreError)
    /// Adds calls made to TMDb on the UTC day `day` (`YYYY-MM-DD`), by kind (`find`, `details`,
    /// `changes`, `configuration`, `serve`…).
    func countTMDbCalls(_ calls: [String: Int], day: String) async throws(StoreError)
    /// The calls counted on each day from `since` (`YYYY-MM-DD`) on, by day then kind.
    func tmdbCalls(since day: String) async throws(StoreError) -> [String: [String: Int]]
    /// Counts the entries and mappings; entries fetched before `staleBefore` count as stale.
    func tmdbCensus(staleBefore: Date) async throws(StoreError) -> TMDbCensus
    /// Up to `limit` entries after `ref` in (media type, ID) order, for export and copy.
    func tmdbFilms(after ref: TMDbRef?, limit: Int) async throws(StoreError) -> [TMDbFilm]
    /// Up to `limit` mappings after `imdbID` in ID order, for export and copy.
    func tmdbMappings(after imdbID: String?, limit: Int) async throws(StoreError) -> [TMDbMapping]
}

/// One transaction's worth of TMDb writes.
public struct TMDbBatch: Sendable, Equatable {
    public var mappings: [TMDbMapping]
    public var films: [TMDbFilm]
    /// Keep what is stored when it is newer (import, copy); replace it otherwise (a fetch).
    public var newerWins: Bool
    /// With `newerWins`, the caller's now: a stored row stamped more than
    /// ``FreshnessPolicy/clockSkew`` after it counts as older than any, so no instant pins a row.
    public var now: Date?

    public init(mappings: [TMDbMapping] = [], films: [TMDbFilm] = [], newerWins: Bool = false, now: Date? = nil) {
        self.mappings = mappings
        self.films = films
        self.newerWins = newerWins
        self.now = now
    }

    /// Whether a row stamped `written` replaces one stamped `stored`.
    public func replaces(stored: Date, with written: Date) -> Bool {
        guard newerWins else { return true }
        if let now, stored > now.addingTimeInterval(FreshnessPolicy.clockSkew) { return true }
        return written > stored
    }

    public var isEmpty: Bool { mappings.isEmpty && films.isEmpty }
}

/// What a TMDb write did.
public struct TMDbWriteCounts: Sendable, Equatable {
    /// Entries written.
    public var films = 0
    /// Entries not written because the stored one is newer.
    public var filmsKept = 0
    /// Mappings written.
    public var mappings = 0
    /// Mappings not written because the stored one is newer.
    public var mappingsKept = 0

    public init(films: Int = 0, filmsKept: Int = 0, mappings: Int = 0, mappingsKept: Int = 0) {
        self.films = films
        self.filmsKept = filmsKept
        self.mappings = mappings
        self.mappingsKept = mappingsKept
    }
}

/// What the cache knows of one IMDb ID on TMDb's side.
public struct TMDbState: Sendable, Equatable {
    public var imdbID: String
    /// `/find`'s answer, or `nil` when never asked.
    public var mapping: TMDbMapping?
    /// When the mapped entry was fetched, if it is stored.
    public var fetchedAt: Date?
    /// Whether the changes feed named the mapped entry since its fetch.
    public var changed: Bool

    public init(imdbID: String, mapping: TMDbMapping?, fetchedAt: Date? = nil, changed: Bool = false) {
        self.imdbID = imdbID
        self.mapping = mapping
        self.fetchedAt = fetchedAt
        self.changed = changed
    }
}

/// The TMDb side of the cache, counted.
public struct TMDbCensus: Sendable, Equatable {
    public var movies = 0
    public var series = 0
    /// Entries fetched before the census's stale bound.
    public var stale = 0
    /// Entries the changes feed named since their fetch.
    public var changed = 0
    /// IMDb IDs `/find` mapped to an entry.
    public var mapped = 0
    /// IMDb IDs `/find` found nothing for.
    public var notOnTMDb = 0

    public init(movies: Int = 0, series: Int = 0, stale: Int = 0, changed: Int = 0, mapped: Int = 0, notOnTMDb: Int = 0)
    {
        self.movies = movies
        self.series = series
        self.stale = stale
        self.changed = changed
        self.mapped = mapped
        self.notOnTMDb = notOnTMDb
    }

    public var entries: Int { movies + series }
}
