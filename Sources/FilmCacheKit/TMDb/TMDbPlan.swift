import Foundation

/// How TMDb's side of a worklist stands at one instant, and what a warm does about it: IMDb IDs to
/// resolve through `/find` (never asked, or their answer past its TTL), entries to fetch (missing,
/// past their TTL, or named by the changes feed), and the rest fresh.
public struct TMDbPlan: Sendable, Equatable {
    /// IDs to ask `/find` for, in worklist order; each found entry is then fetched in the same run.
    public var toResolve: [String] = []
    /// Entries to fetch, with the IMDb ID that named them, in worklist order.
    public var toFetch: [(imdbID: String, ref: TMDbRef)] = []
    /// Distinct IDs planned.
    public var considered = 0
    /// Entries stored and fresh.
    public var fresh = 0
    /// IDs TMDb knows no entry of, that answer standing.
    public var notOnTMDb = 0
    /// Of `toFetch`: entries not stored yet.
    public var missing = 0
    /// Of `toFetch`: entries past their TTL.
    public var stale = 0
    /// Of `toFetch`: entries the changes feed named since their fetch (fresh by age).
    public var changed = 0
    /// The entries counted in `changed`.
    public var changedRefs: Set<TMDbRef> = []

    public init() {}

    /// Calls the plan needs at least: one `/find` per ID to resolve, one details call per entry.
    public var calls: Int { toResolve.count + toFetch.count }

    /// Plans `states` at `now`: an entry is fresh for `ttl` after its fetch unless the feed named
    /// it; a `/find` answer (positive or negative) stands for `findTTL`.
    public static func make(states: [TMDbState], now: Date, ttl: TimeInterval, findTTL: TimeInterval) -> TMDbPlan {
        var plan = TMDbPlan()
        var fetching: Set<TMDbRef> = []
        for state in states {
            plan.considered += 1
            guard let mapping = state.mapping, now.timeIntervalSince(mapping.checkedAt) < findTTL,
                mapping.checkedAt <= now.addingTimeInterval(FreshnessPolicy.clockSkew)
            else {
                plan.toResolve.append(state.imdbID)
                continue
            }
            guard let ref = mapping.ref else {
                plan.notOnTMDb += 1
                continue
            }
            if let fetchedAt = state.fetchedAt {
                let aged =
                    now.timeIntervalSince(fetchedAt) >= ttl
                    || fetchedAt > now.addingTimeInterval(FreshnessPolicy.clockSkew)
                if !aged && !state.changed {
                    plan.fresh += 1
                    continue
                }
                // Two IDs naming one entry fetch it once.
                guard fetching.insert(ref).inserted else { continue }
                if aged {
                    plan.stale += 1
                } else {
                    plan.changed += 1
                    plan.changedRefs.insert(ref)
                }
            } else {
                guard fetching.insert(ref).inserted else { continue }
                plan.missing += 1
            }
            plan.toFetch.append((state.imdbID, ref))
        }
        return plan
    }

    public static func == (a: TMDbPlan, b: TMDbPlan) -> Bool {
        a.toResolve == b.toResolve && a.toFetch.map(\.imdbID) == b.toFetch.map(\.imdbID)
            && a.toFetch.map(\.ref) == b.toFetch.map(\.ref) && a.considered == b.considered && a.fresh == b.fresh
            && a.notOnTMDb == b.notOnTMDb && a.missing == b.missing && a.stale == b.stale && a.changed == b.changed
    }
}

/// What TMDb's part of a warm did, as the summary prints it and the run history keeps it.
public struct TMDbWarmSummary: Sendable, Equatable, Codable {
    /// Distinct worklist IDs.
    public var considered = 0
    /// Entries stored and fresh when the run planned.
    public var fresh = 0
    /// IDs `/find` was asked for.
    public var resolved = 0
    /// Of `resolved`: IDs TMDb knows no entry of (recorded, to stand for their TTL).
    public var notOnTMDb = 0
    /// Entries fetched and stored.
    public var fetched = 0
    /// Of `fetched`: entries the changes feed named.
    public var changedRefreshed = 0
    /// Entries TMDb answered 404 for.
    public var notFound = 0
    /// Requests that failed after their retries.
    public var failed = 0
    /// Planned but not done: a stop, the time limit or the breaker ended the run first.
    public var deferred = 0
    /// Planned, and asked of TMDb by another warm sharing the cache (or answered since the plan).
    public var answeredElsewhere = 0
    /// Calls sent, retries and the changes feed included, by kind (`find`, `details`, `changes`).
    public var calls: [String: Int] = [:]
    /// 429 answers: each paused every TMDb request for its `Retry-After`.
    public var rateLimited = 0
    /// Entries the changes feed named that the cache holds (marked to refresh).
    public var feedMarked = 0
    /// How the changes feed was read: `read` (windows since the last run), `recent` (read within the
    /// hour: not again), `first-run` (no run
    /// before: TTLs decide), `too-old` (the last run is older than the feed reaches: TTLs decide),
    /// `failed` (the feed could not be read: TTLs decide, the next run reads it again).
    public var feed: String?
    /// Why TMDb's part stopped early, if it did.
    public var stopDetail: String?

    public init() {}

    /// All calls sent.
    public var totalCalls: Int { calls.values.reduce(0, +) }

    /// Adds what `other` (a part of the run) did to these counts; the first stop's reason stays.
    mutating func add(_ other: TMDbWarmSummary) {
        resolved += other.resolved
        notOnTMDb += other.notOnTMDb
        fetched += other.fetched
        changedRefreshed += other.changedRefreshed
        notFound += other.notFound
        failed += other.failed
        deferred += other.deferred
        answeredElsewhere += other.answeredElsewhere
        stopDetail = stopDetail ?? other.stopDetail
    }
}
