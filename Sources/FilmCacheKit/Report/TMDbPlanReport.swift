import Foundation

/// TMDb's part of tonight's plan as `filmcache plan --source tmdb` shows it: the plan and the TTLs
/// it was made with.
public struct TMDbNightPlan: Sendable, Equatable {
    /// What a warm reading TMDb would do now.
    public var plan: TMDbPlan
    /// How long an entry stays fresh unless the changes feed names it (`tmdb_ttl_days`).
    public var ttl: TimeInterval
    /// How long `/find`'s answer stands (`tmdb_find_ttl_days`).
    public var findTTL: TimeInterval

    /// A plan already made with these TTLs.
    public init(plan: TMDbPlan, ttl: TimeInterval, findTTL: TimeInterval) {
        self.plan = plan
        self.ttl = ttl
        self.findTTL = findTTL
    }

    /// Plans the worklist's IDs against `store` at `now`; with no store (a backend that keeps no
    /// TMDb data), every ID is still to resolve.
    public static func make(
        worklist: Worklist, store: (any TMDbStore)?, ttl: TimeInterval, findTTL: TimeInterval, now: Date
    ) async throws(StoreError) -> TMDbNightPlan {
        let ids = worklist.ids
        let states = try await store?.tmdbStates(of: ids) ?? ids.map { TMDbState(imdbID: $0, mapping: nil) }
        return TMDbNightPlan(
            plan: TMDbPlan.make(states: states, now: now, ttl: ttl, findTTL: findTTL), ttl: ttl, findTTL: findTTL)
    }
}

/// Renders ``TMDbNightPlan`` for `filmcache plan`: a text section after OMDb's (or alone) and a
/// `"tmdb"` object in `plan --json`.
public enum TMDbPlanReport {
    /// The section: a heading, then the counts.
    public static func text(_ night: TMDbNightPlan) -> String {
        let p = night.plan
        let ttl = days(night.ttl)
        let findTTL = days(night.findTTL)
        return "TMDb (dry run, no TMDb call)\n"
            + TextTable.counts(
                [
                    ("considered", p.considered, "distinct IDs in the worklists"),
                    ("fresh", p.fresh, "stored and within their TTL (\(ttl)); no call"),
                    (
                        "to resolve", p.toResolve.count,
                        "to ask TMDb's /find: never asked, or asked over \(findTTL) ago"
                    ),
                    (
                        "to fetch", p.toFetch.count,
                        "missing \(p.missing), stale \(p.stale), changed \(p.changed) (named by the changes feed)"
                    ),
                    ("not on TMDb", p.notOnTMDb, "/find found no entry; asked again after \(findTTL)"),
                    (
                        "calls", p.calls,
                        "at least: one per ID to resolve and per entry to fetch"
                    ),
                ], labelWidth: 14)
    }

    /// The plan's `"tmdb"` object; with `ids`, the IDs to resolve and the entries to fetch, in order.
    static func document(_ night: TMDbNightPlan, ids: Bool) -> Document {
        let p = night.plan
        return Document(
            considered: p.considered, fresh: p.fresh, toResolve: p.toResolve.count, toFetch: p.toFetch.count,
            missing: p.missing, stale: p.stale, changed: p.changed, notOnTMDb: p.notOnTMDb, calls: p.calls,
            ttlDays: night.ttl / FreshnessPolicy.day, findTTLDays: night.findTTL / FreshnessPolicy.day,
            toResolveIDs: ids ? p.toResolve : nil,
            toFetchEntries: ids ? p.toFetch.map { Document.Entry(imdbID: $0.imdbID, tmdb: $0.ref.description) } : nil)
    }

    /// `plan --json` when only TMDb is planned: `{"tmdb": {…}}`.
    public static func json(_ night: TMDbNightPlan, ids: Bool) -> String {
        ReportJSON.encode(["tmdb": document(night, ids: ids)])
    }

    /// TMDb's plan as JSON.
    struct Document: Encodable, Equatable {
        var considered, fresh, toResolve, toFetch, missing, stale, changed, notOnTMDb, calls: Int
        var ttlDays, findTTLDays: Double
        var toResolveIDs: [String]?
        var toFetchEntries: [Entry]?

        /// An entry to fetch and the IMDb ID that named it.
        struct Entry: Encodable, Equatable {
            var imdbID: String
            /// `movie:550`.
            var tmdb: String
        }
    }

    private static func days(_ interval: TimeInterval) -> String {
        TextTable.decimal(interval / FreshnessPolicy.day) + " d"
    }
}
