import Dispatch
import FilmCacheKit
import Foundation
import Logging

/// The SQLite backend: a `CacheStore` behind the store seam, its blocking calls made on a thread
/// of its own so they never hold a thread of Swift's cooperative pool; a cache opened read-only
/// answers on the caller's thread instead (see ``open(path:logger:readOnly:)``).
///
/// One writer host: warms on one file are kept to one at a time by the run lock, so the plan is
/// not shared and every claim is granted.
public final class SQLiteBackend: CacheBackend {
    /// The store every call goes to; tests read it directly.
    public let store: CacheStore
    private let queue: DispatchQueue
    /// Whether each call runs on its caller's thread rather than on `queue` (a read-only cache's,
    /// see ``open(path:logger:readOnly:)``): it then holds that thread of the cooperative pool
    /// while SQLite reads, or waits out another process's lock.
    private let callsOnCaller: Bool

    public var displayName: String { store.path }
    public var sharesPlanBetweenWarms: Bool { false }
    public var concurrentCommits: Int { 1 }

    /// Opens (creating and migrating unless `readOnly`) the file at `path`; a read-only cache
    /// answers on the caller's thread, as ``open(path:logger:readOnly:)``'s does.
    public convenience init(path: String, logger: Logger, readOnly: Bool = false) throws(StoreError) {
        self.init(store: try CacheStore(path: path, logger: logger, readOnly: readOnly), callsOnCaller: readOnly)
    }

    /// Opens the file as `init(path:logger:readOnly:)` does, on a queue of its own: opening can
    /// wait seconds for another process's lock, and a migration rewrites tables.
    ///
    /// A cache opened read-only is opened, and answers every call, on the caller's thread
    /// (``callsOnCaller``): it serves the read commands (`show`, `quota`, `plan`, `stats`, the
    /// source of a copy, an export's TMDb side), which make a few short reads one after another, and the hop to the
    /// queue's thread and back cost more than most of those reads (`quota` started 15% sooner
    /// without it). A read-only open neither migrates nor takes the writer's lock.
    public static func open(path: String, logger: Logger, readOnly: Bool = false) async throws(StoreError)
        -> SQLiteBackend
    {
        if readOnly {
            return SQLiteBackend(
                store: try CacheStore(path: path, logger: logger, readOnly: true), callsOnCaller: true)
        }
        let store = try await DispatchQueue(label: "filmcache.sqlite.open").run { () throws(StoreError) in
            try CacheStore(path: path, logger: logger, readOnly: readOnly)
        }
        return SQLiteBackend(store: store)
    }

    /// Serves `store`: on a queue of its own, or with `callsOnCaller` on the thread of each call.
    public init(store: CacheStore, callsOnCaller: Bool = false) {
        self.store = store
        self.callsOnCaller = callsOnCaller
        queue = DispatchQueue(label: "filmcache.sqlite")
    }

    /// Waits for the queue's last call to return before letting the store go, so the last
    /// reference to it is dropped here, on the releasing thread, and the file is closed (its last
    /// close folds the WAL into it) before the process can exit: a call that resumed its waiter
    /// still holds the store until it returns.
    deinit {
        queue.sync {}
    }

    /// Runs `body` on the store's own queue and waits for it without blocking a pool thread, or
    /// runs it here when calls are made on the caller's thread.
    func run<T: Sendable>(_ body: @escaping @Sendable (CacheStore) throws(StoreError) -> T)
        async throws(StoreError) -> T
    {
        let store = store
        if callsOnCaller { return try body(store) }
        return try await queue.run { () throws(StoreError) -> T in try body(store) }
    }

    /// Waits for every call already handed to the queue to return, so that none still holds the
    /// store: the last reference then closes the file, whose last close folds the WAL into it.
    public func close() async {
        // Calls made on their callers' threads have all returned: none is queued.
        guard !callsOnCaller else { return }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    public func schemaVersion() async throws(StoreError) -> Int {
        try await run { s throws(StoreError) in try s.schemaVersion() }
    }

    public func storedBytes() async throws(StoreError) -> Int? { nil }

    // MARK: FilmStore

    public func write(_ batch: WriteBatch) async throws(StoreError) {
        try await run { s throws(StoreError) in try s.write(batch) }
    }

    public func film(_ imdbID: String) async throws(StoreError) -> IMDBFilm? {
        try await run { s throws(StoreError) in try s.film(imdbID) }
    }

    public func films(_ imdbIDs: [String]) async throws(StoreError) -> [IMDBFilm] {
        try await run { s throws(StoreError) in try s.films(imdbIDs) }
    }

    public func lookup(_ imdbID: String) async throws(StoreError) -> LookupEntry? {
        try await run { s throws(StoreError) in try s.lookup(imdbID) }
    }

    public func aliasTarget(of imdbID: String) async throws(StoreError) -> String? {
        try await run { s throws(StoreError) in try s.aliasTarget(of: imdbID) }
    }

    public func filmCount() async throws(StoreError) -> Int {
        try await run { s throws(StoreError) in try s.filmCount() }
    }

    public func states(of ids: [String]) async throws(StoreError) -> [CachedState] {
        try await run { s throws(StoreError) in try s.states(of: ids) }
    }

    public func importFilms(_ films: [IMDBFilm], now: Date) async throws(StoreError) -> ImportCounts {
        try await run { s throws(StoreError) in try s.importFilms(films, now: now) }
    }

    public func films(after afterID: String, limit: Int, since: Date?) async throws(StoreError) -> [IMDBFilm] {
        try await run { s throws(StoreError) in try s.films(after: afterID, limit: limit, since: since) }
    }

    public func beginImport() async throws(StoreError) {
        try await run { s throws(StoreError) in try s.beginImport() }
    }

    public func finishImport() async throws(StoreError) {
        try await run { s throws(StoreError) in try s.finishImport() }
    }

    // MARK: PlanStore

    public func plan(_ worklist: Worklist, planner: Planner, now: Date, budget: Int?) async throws(StoreError) -> Plan {
        try await run { s throws(StoreError) in try s.plan(worklist, planner: planner, now: now, budget: budget) }
    }

    public func census(freshness: FreshnessPolicy, now: Date, currentDataVersion: Int) async throws(StoreError)
        -> CacheCensus
    {
        try await run { s throws(StoreError) in
            try s.census(freshness: freshness, now: now, currentDataVersion: currentDataVersion)
        }
    }

    // MARK: QuotaLedger

    public func reserveCalls(
        _ count: Int, key: String, day: QuotaDay, minute: Int?, dailyLimit: Int, usable: Int, runID: Int?
    ) async throws(StoreError) -> Int {
        try await run { s throws(StoreError) in
            try s.reserveCalls(
                count, key: key, day: day, minute: minute, dailyLimit: dailyLimit, usable: usable, runID: runID)
        }
    }

    public func releaseCalls(_ count: Int, key: String, day: QuotaDay, minute: Int?, runID: Int?)
        async throws(StoreError)
    {
        try await run { s throws(StoreError) in
            try s.releaseCalls(count, key: key, day: day, minute: minute, runID: runID)
        }
    }

    public func markExhausted(key: String, day: String, dailyLimit: Int, at instant: Date) async throws(StoreError) {
        try await run { s throws(StoreError) in
            try s.markExhausted(key: key, day: day, dailyLimit: dailyLimit, at: instant)
        }
    }

    public func recordResetObserved(key: String, before day: String, at instant: Date) async throws(StoreError) {
        try await run { s throws(StoreError) in try s.recordResetObserved(key: key, before: day, at: instant) }
    }

    public func ledger(key: String, day: QuotaDay) async throws(StoreError) -> LedgerEntry? {
        try await run { s throws(StoreError) in try s.ledger(key: key, day: day) }
    }

    public func ledger(key: String, days: [QuotaDay]) async throws(StoreError) -> [String: LedgerEntry] {
        try await run { s throws(StoreError) in try s.ledger(key: key, days: days) }
    }

    public func ledgerForPlanning(key: String?, day: QuotaDay) async throws(StoreError) -> LedgerEntry? {
        try await run { s throws(StoreError) in try s.ledgerForPlanning(key: key, day: day) }
    }

    public func adoptLegacyFingerprint(_ legacy: String, as full: String) async throws(StoreError) -> Bool {
        try await run { s throws(StoreError) in try s.adoptLegacyFingerprint(legacy, as: full) }
    }

    public func ledgerKeys(today: String, since: String) async throws(StoreError) -> [String] {
        try await run { s throws(StoreError) in try s.ledgerKeys(today: today, since: since) }
    }

    public func callsByMinute(key: String) async throws(StoreError) -> [Int: Int] {
        try await run { s throws(StoreError) in try s.callsByMinute(key: key) }
    }

    public func observedResets(key: String) async throws(StoreError) -> [Date] {
        try await run { s throws(StoreError) in try s.observedResets(key: key) }
    }

    public func latestDailyLimit(key: String) async throws(StoreError) -> Int? {
        try await run { s throws(StoreError) in try s.latestDailyLimit(key: key) }
    }

    // MARK: RunHistory

    public func beginRun(startedAt: Date, key: String) async throws(StoreError) -> Int {
        try await run { s throws(StoreError) in try s.beginRun(startedAt: startedAt, key: key) }
    }

    public func finishRun(id: Int, summary: WarmSummary, finishedAt: Date, outcome: String) async throws(StoreError) {
        try await run { s throws(StoreError) in
            try s.finishRun(id: id, summary: summary, finishedAt: finishedAt, outcome: outcome)
        }
    }

    public func runs(key: String?, since: Date) async throws(StoreError) -> [RunRecord] {
        try await run { s throws(StoreError) in try s.runs(key: key, since: since) }
    }

    public func lastCompletedRunFinish() async throws(StoreError) -> Date? {
        try await run { s throws(StoreError) in try s.lastCompletedRunFinish() }
    }

    // MARK: PosterIndex

    public func postersDue(after afterID: String, limit: Int, now: Date, revalidateBefore: Date, fetchedSince: Date?)
        async throws(StoreError) -> [PosterDue]
    {
        try await run { s throws(StoreError) in
            try s.postersDue(
                after: afterID, limit: limit, now: now, revalidateBefore: revalidateBefore, fetchedSince: fetchedSince)
        }
    }

    public func recordPosters(_ outcomes: [PosterOutcome]) async throws(StoreError) {
        try await run { s throws(StoreError) in try s.recordPosters(outcomes) }
    }

    public func posterFileIsReferenced(sha256: String) async throws(StoreError) -> Bool {
        try await run { s throws(StoreError) in try s.posterFileIsReferenced(sha256: sha256) }
    }

    public func poster(_ imdbID: String) async throws(StoreError) -> PosterEntry? {
        try await run { s throws(StoreError) in try s.poster(imdbID) }
    }

    // MARK: WorkClaims

    /// One warm at a time writes a SQLite file: every ID asked is granted.
    public func claim(_ ids: [String], runID: Int, plannedAt: Date, lease: Duration) async throws(StoreError)
        -> ClaimOutcome
    { ClaimOutcome(granted: ids) }

    public func releaseClaims(runID: Int) async throws(StoreError) {}

    /// Every flight is taken: serve processes on one SQLite file each ask OMDb on their own.
    public func claimFlight(_ key: String, holder: Int, lease: Duration) async throws(StoreError) -> Bool { true }

    public func releaseFlight(_ key: String, holder: Int) async throws(StoreError) {}
}
