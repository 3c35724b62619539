import Foundation

/// A cache database held in memory: every part of ``CacheBackend`` with the SQLite backend's
/// semantics, for tests of the pipeline, the reports and `serve` that need no file.
///
/// One writer, as a SQLite file under its run lock: the plan is not shared between warms, every
/// claim and every flight is granted. Instants are kept to the second, truncated, as both databases
/// keep them; the ledger counts a call when it is reserved (over-count, never under-count). The one
/// instant it reads on its own (how far in the future an import may be stamped) comes from the
/// wall clock it is given.
package actor MemoryBackend: CacheBackend {
    /// The `films` table, by ID.
    var films: [String: IMDBFilm] = [:]
    /// The `lookups` table, by ID.
    var lookups: [String: LookupRow] = [:]
    /// The `aliases` table, by asked ID.
    var aliases: [String: FilmAlias] = [:]
    /// The title index, by key.
    var titles: [TitleKey: TitleAnswer] = [:]
    /// The `posters` table, by ID.
    var posters: [String: PosterRow] = [:]
    /// The `quota_ledger` table, by key fingerprint and quota day (`used` the row's own count).
    var ledgerRows: [LedgerKey: LedgerEntry] = [:]
    /// The `quota_calls` table: calls by key fingerprint, then by minute.
    var calls: [String: [Int: Int]] = [:]
    /// The `runs` table, by id, with the calls the ledger counted for each.
    var runRows: [Int: RunRow] = [:]
    /// The largest run id ever given: ids are not reused, as SQLite's `AUTOINCREMENT`.
    var lastRunID = 0
    /// The `answers` table, by query.
    var answers: [String: CachedAnswer] = [:]
    /// The `demand` table, by ID.
    var demandRows: [String: DemandEntry] = [:]
    /// The TMDb tables.
    var tmdb = MemoryTMDbTables()

    /// Where the import's bound on future stamps comes from.
    let wall: WallClock

    /// The key of a ledger row.
    struct LedgerKey: Hashable {
        /// The key's fingerprint.
        var key: String
        /// The quota day, `YYYY-MM-DD`.
        var day: String
    }

    /// What output calls the cache: `memory` unless named.
    package nonisolated let displayName: String
    /// One warm at a time, as on a SQLite file under its run lock.
    package nonisolated var sharesPlanBetweenWarms: Bool { false }
    /// One writer commits one batch at a time.
    package nonisolated var concurrentCommits: Int { 1 }

    /// An empty cache named `displayName`, reading instants from `wall`.
    package init(displayName: String = "memory", wall: WallClock) {
        self.displayName = displayName
        self.wall = wall
    }

    /// There is no schema in memory: version 0, as a file no warm has set up.
    package func schemaVersion() async throws(StoreError) -> Int { 0 }

    package func storedBytes() async throws(StoreError) -> Int? { nil }

    /// Nothing to close; the cache goes with the last reference.
    package func close() async {}

    /// Whether `a` sorts before `b` in byte order, as SQLite sorts text.
    static func precedes(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    // MARK: WorkClaims

    /// One warm at a time writes: every ID asked is granted.
    package func claim(_ ids: [String], runID: Int, plannedAt: Date, lease: Duration) async throws(StoreError)
        -> ClaimOutcome
    { ClaimOutcome(granted: ids) }

    package func releaseClaims(runID: Int) async throws(StoreError) {}

    /// Every flight is taken: one process writes.
    package func claimFlight(_ key: String, holder: Int, lease: Duration) async throws(StoreError) -> Bool { true }

    package func releaseFlight(_ key: String, holder: Int) async throws(StoreError) {}
}

extension Date {
    /// The instant as a database keeps it: to the second, truncated toward the past.
    var storedSecond: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
