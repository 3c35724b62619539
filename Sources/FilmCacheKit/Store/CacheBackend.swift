import Foundation

// The store seam: what the pipeline, the reports and the commands need of a cache database,
// with no SQL and no backend type in it. A backend (SQLite on one host, PostgreSQL for several)
// is whatever conforms to `CacheBackend`; the contract suite over both is its definition.
//
// Every operation is one transaction. Times are instants (`Date`); a backend keeps them to the
// microsecond at least. Errors are `StoreError`, naming the database by its display name.

/// Films, negative answers, aliases and title answers: what a warm writes and `show` reads.
public protocol FilmStore: Sendable {
    /// Commits one batch in a single transaction: films upserted, lookups, aliases and title
    /// answers recorded. A film that arrives clears its ID's lookup and any alias under its ID; an
    /// alias clears the asked ID's lookup.
    func write(_ batch: WriteBatch) async throws(StoreError)
    /// The cached film with this ID, or `nil`.
    func film(_ imdbID: String) async throws(StoreError) -> IMDBFilm?
    /// The cached films with these IDs, in one read, in no particular order: an ID the cache lacks
    /// is left out (an alias is not followed).
    func films(_ imdbIDs: [String]) async throws(StoreError) -> [IMDBFilm]
    /// The not-found or failure entry for this ID, if any.
    func lookup(_ imdbID: String) async throws(StoreError) -> LookupEntry?
    /// The ID `imdbID` is an alias of, if it is one.
    func aliasTarget(of imdbID: String) async throws(StoreError) -> String?
    /// Number of films.
    func filmCount() async throws(StoreError) -> Int
    /// What the cache knows of each of `ids`: one entry per distinct ID, in the order given.
    func states(of ids: [String]) async throws(StoreError) -> [CachedState]
    /// Writes imported films in one transaction; the newer `fetched_at` wins (see `ImportCounts`), and a
    /// cached film stamped more than ``FreshnessPolicy/clockSkew`` after `now` counts as older than any.
    func importFilms(_ films: [IMDBFilm], now: Date) async throws(StoreError) -> ImportCounts
    /// Readies the store for an import of many films in many ``importFilms(_:now:)`` calls;
    /// ``finishImport()`` ends it, on every path. A backend may set aside work it does faster once,
    /// at the end, than film by film (and must make it whole again however the import ends).
    func beginImport() async throws(StoreError)
    /// Makes whole what ``beginImport()`` set aside; nothing when it set nothing aside.
    func finishImport() async throws(StoreError)
    /// Up to `limit` films after `afterID` in ID order, fetched at or after `since` when given:
    /// one short read, for export and copy.
    func films(after afterID: String, limit: Int, since: Date?) async throws(StoreError) -> [IMDBFilm]
}

/// Planning a night and counting the cache.
public protocol PlanStore: Sendable {
    /// Plans `worklist` against the cache: the plan `Planner` makes from the states of its IDs and
    /// their demand (``AnswerCache/demand(of:)``, read by the ID the worklist names), titles the
    /// title index knows standing as their IDs.
    func plan(_ worklist: Worklist, planner: Planner, now: Date, budget: Int?) async throws(StoreError) -> Plan
    /// Counts every film by type, version, age and freshness at `now`, and the negative answers.
    func census(freshness: FreshnessPolicy, now: Date, currentDataVersion: Int) async throws(StoreError)
        -> CacheCensus
}

/// The daily quota ledger, one for every process and host sharing the database.
public protocol QuotaLedger: Sendable {
    /// Reserves up to `count` calls for `key` on `day` (charged to `minute`), never past `usable`
    /// of the day's calls and none once the day is exhausted; returns how many were granted.
    /// Atomic against every other reservation of the key.
    func reserveCalls(
        _ count: Int, key: String, day: QuotaDay, minute: Int?, dailyLimit: Int, usable: Int, runID: Int?
    ) async throws(StoreError) -> Int
    /// Gives back reserved calls never sent, to the day and minute they were reserved on.
    func releaseCalls(_ count: Int, key: String, day: QuotaDay, minute: Int?, runID: Int?) async throws(StoreError)
    /// Records OMDb's "limit reached" for `key` on `day`: no more calls that day, from any host.
    func markExhausted(key: String, day: String, dailyLimit: Int, at instant: Date) async throws(StoreError)
    /// Records `instant` as the observed reset of the latest earlier quota day that ran out.
    func recordResetObserved(key: String, before day: String, at instant: Date) async throws(StoreError)
    /// `key`'s entry for `day`, if any call was counted or a limit seen within it.
    func ledger(key: String, day: QuotaDay) async throws(StoreError) -> LedgerEntry?
    /// `key`'s entries for `days` that have one, by day key (``QuotaDay/key``): SQLite reads them
    /// in one snapshot; PostgreSQL reads each day with a statement of its own, as
    /// ``ledger(key:day:)`` does.
    func ledger(key: String, days: [QuotaDay]) async throws(StoreError) -> [String: LedgerEntry]
    /// Today's entry for planning: `key`'s, or without a key the busiest key's.
    func ledgerForPlanning(key: String?, day: QuotaDay) async throws(StoreError) -> LedgerEntry?
    /// Renames a key's legacy four-digit fingerprint to its full one; `false` when there was nothing.
    func adoptLegacyFingerprint(_ legacy: String, as full: String) async throws(StoreError) -> Bool
    /// Every key in the ledger, busiest first.
    func ledgerKeys(today: String, since: String) async throws(StoreError) -> [String]
    /// `key`'s calls by the minute (since 1970 UTC) they were counted in.
    func callsByMinute(key: String) async throws(StoreError) -> [Int: Int]
    /// Every observed reset recorded for `key`, oldest first.
    func observedResets(key: String) async throws(StoreError) -> [Date]
    /// The daily limit the latest warm of `key` was configured with.
    func latestDailyLimit(key: String) async throws(StoreError) -> Int?
    /// Runs until cancelled (and returns at once then), calling `noticed` with the quota day
    /// (`QuotaDay.key`) each time another process records OMDb's "limit reached" for `key`
    /// (``markExhausted(key:day:dailyLimit:at:)``), and, once listening, with each recent day already
    /// exhausted. A backend that one warm at a time writes has nothing to tell and only waits.
    func watchExhaustion(key: String, noticed: @escaping @Sendable (String) async -> Void) async
}

/// The history of warms.
public protocol RunHistory: Sendable {
    /// Starts a run record and returns its id, unique across hosts. Runs left unfinished that no
    /// live process holds are closed first as `killed`, with the calls the ledger counted for them.
    func beginRun(startedAt: Date, key: String) async throws(StoreError) -> Int
    /// Completes a run record with its counts and how it ended.
    func finishRun(id: Int, summary: WarmSummary, finishedAt: Date, outcome: String) async throws(StoreError)
    /// Runs started at or after `since`, oldest first; only `key`'s when given.
    func runs(key: String?, since: Date) async throws(StoreError) -> [RunRecord]
    /// When the latest completed run (done, or stopped early on purpose) finished.
    func lastCompletedRunFinish() async throws(StoreError) -> Date?
}

/// The poster index: which store file holds each film's poster.
public protocol PosterIndex: Sendable {
    /// Up to `limit` films after `afterID` whose poster is due: never fetched, failed and due again,
    /// gone and past its retry, or stored and due for revalidation (`revalidateBefore`). Fewer than
    /// `limit` only when no film after the last one returned is due: a short page is the last.
    func postersDue(after afterID: String, limit: Int, now: Date, revalidateBefore: Date, fetchedSince: Date?)
        async throws(StoreError) -> [PosterDue]
    /// Records the outcome of each poster request in one transaction.
    func recordPosters(_ outcomes: [PosterOutcome]) async throws(StoreError)
    /// Whether any poster row names the file with this digest.
    func posterFileIsReferenced(sha256: String) async throws(StoreError) -> Bool
    /// The poster row of one film.
    func poster(_ imdbID: String) async throws(StoreError) -> PosterEntry?
}

/// Splitting one night's plan between warms running at the same time.
///
/// A warm claims the due IDs it is about to fetch, in plan order; an ID is granted to one run
/// at a time, until its lease expires, and not at all once some run has fetched it (or
/// recorded a negative answer for it) since `plannedAt`. A backend with one writer (SQLite,
/// under the run lock) grants every ID asked.
public protocol WorkClaims: Sendable {
    /// Claims those of `ids` (IDs, or titles by `TitleKey.claimKey`) no live lease of another run
    /// holds and no run has answered since `plannedAt`, for `runID`, for `lease`. Claiming also
    /// renews the run's own lease; claiming no IDs renews those of its claims with under two thirds
    /// of `lease` left instead (a live run does so every third of its lease). A write that answers
    /// an ID or title ends its claim.
    func claim(_ ids: [String], runID: Int, plannedAt: Date, lease: Duration) async throws(StoreError) -> ClaimOutcome
    /// Ends every lease `runID` holds.
    func releaseClaims(runID: Int) async throws(StoreError)
    /// Returns when `runID` can no longer keep what it claimed: the process's session with the
    /// database, which tells the other warms that the run is alive, has ended (the server restarted,
    /// the connection was cut or stopped answering), so they may take its claims at once. The run
    /// then claims and fetches nothing more. Where claims need no session (one writer), it waits until
    /// cancelled.
    func waitUntilClaimsLost(runID: Int) async
    /// Takes `key` (a film or query `serve` is about to ask OMDb) for the serve process `holder`
    /// (a negative number, never a run's) for `lease`, unless another holder's lease on it is live;
    /// whether taken. So the processes serving one database ask OMDb once a key between them. Where
    /// one process at a time writes the database, every key is taken.
    func claimFlight(_ key: String, holder: Int, lease: Duration) async throws(StoreError) -> Bool
    /// Ends `holder`'s lease on `key`, if it still holds it.
    func releaseFlight(_ key: String, holder: Int) async throws(StoreError)
}

/// What a claim got: the IDs granted, and those some run has answered since the plan. The IDs
/// asked and in neither list are held by another live run.
public struct ClaimOutcome: Sendable, Equatable {
    /// Granted to the claiming run, in the order asked.
    public var granted: [String]
    /// Fetched (or answered not found or failed) by some run since the plan: nothing to do.
    public var answered: [String]

    public init(granted: [String], answered: [String] = []) {
        self.granted = granted
        self.answered = answered
    }
}

/// A cache database: every part above, what it says of itself, and closing it; named only where a
/// database is opened and closed (the commands). Everything else takes the parts it uses by role
/// (`StoreRoles.swift`).
public protocol CacheBackend: StoreTraits, FilmStore, PlanStore, QuotaLedger, RunHistory, PosterIndex, WorkClaims,
    CacheTransfer, AnswerCache, TMDbStore
{
    /// Closes connections; the backend is not used after.
    func close() async
}

extension PlanStore {
    /// The census with today's normalizer version.
    public func census(freshness: FreshnessPolicy, now: Date) async throws(StoreError) -> CacheCensus {
        try await census(freshness: freshness, now: now, currentDataVersion: FilmNormalizer.dataVersion)
    }
}

extension FilmStore {
    /// Sets nothing aside: each film is written whole as it comes.
    public func beginImport() async throws(StoreError) {}

    /// Nothing to make whole.
    public func finishImport() async throws(StoreError) {}
}

extension WorkClaims {
    /// Waits until cancelled: with one writer at a time, no other process takes a run's claims.
    public func waitUntilClaimsLost(runID: Int) async {
        await untilCancelled()
    }
}

extension QuotaLedger {
    /// Each day's entry, one day at a time.
    public func ledger(key: String, days: [QuotaDay]) async throws(StoreError) -> [String: LedgerEntry] {
        var entries: [String: LedgerEntry] = [:]
        for day in days {
            if let entry = try await ledger(key: key, day: day) { entries[day.key] = entry }
        }
        return entries
    }

    /// Waits until cancelled: with one writer at a time, no other process reaches the limit.
    public func watchExhaustion(key: String, noticed: @escaping @Sendable (String) async -> Void) async {
        await untilCancelled()
    }

    /// Reserves with the day's first minute and no run.
    public func reserveCalls(
        _ count: Int, key: String, day: QuotaDay, minute: Int? = nil, dailyLimit: Int, usable: Int
    ) async throws(StoreError) -> Int {
        try await reserveCalls(
            count, key: key, day: day, minute: minute, dailyLimit: dailyLimit, usable: usable, runID: nil)
    }
}

/// What `filmcache serve` keeps beside the films: OMDb's answers to queries that are not a plain
/// `i=` (`t=`, `s=`, `Season=`, `plot=full`), under the normalized query, negative answers
/// included; and how often apps asked for each film (demand), which the nightly plan reads.
public protocol AnswerCache: Sendable {
    /// The stored answer to `query` (a ``ServeQuery/cacheKey``), or `nil`.
    func answer(for query: String) async throws(StoreError) -> CachedAnswer?
    /// Stores answers in one transaction, each replacing any earlier one to its query.
    func storeAnswers(_ answers: [CachedAnswer]) async throws(StoreError)
    /// Adds `counts` (requests by IMDb ID) to each film's demand in one transaction, `at` being
    /// the latest request among them.
    func recordDemand(_ counts: [String: Int], at instant: Date) async throws(StoreError)
    /// The demand of each of `ids` that has any, for the planner (IDs with none are absent).
    func demand(of ids: [String]) async throws(StoreError) -> [String: Int]
    /// The `limit` most requested films, most first (ties by ID), with their titles where cached.
    func mostRequested(limit: Int) async throws(StoreError) -> [DemandEntry]
}

/// One stored answer of OMDb to a query.
public struct CachedAnswer: Sendable, Equatable {
    /// The normalized query it answers (``ServeQuery/cacheKey``).
    public var query: String
    /// OMDb's body, byte for byte.
    public var body: [UInt8]
    /// Whether OMDb found something (`"Response":"True"`); `false` for its negative answers.
    public var found: Bool
    /// When OMDb answered.
    public var answeredAt: Date

    public init(query: String, body: [UInt8], found: Bool, answeredAt: Date) {
        self.query = query
        self.body = body
        self.found = found
        self.answeredAt = answeredAt
    }
}

/// How often apps asked for one film.
public struct DemandEntry: Sendable, Equatable {
    public var imdbID: String
    /// The film's title, when the cache holds it.
    public var title: String?
    public var requests: Int
    public var lastRequestedAt: Date

    public init(imdbID: String, title: String?, requests: Int, lastRequestedAt: Date) {
        self.imdbID = imdbID
        self.title = title
        self.requests = requests
        self.lastRequestedAt = lastRequestedAt
    }
}
