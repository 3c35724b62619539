import Foundation

/// Decides what a run fetches: what is missing or stale, in priority order, never what is fresh.
public struct Planner: Sendable {
    /// How long a cached film stays fresh.
    public var ttl: TimeInterval
    /// The normalizer version rows must carry to count as current.
    public var currentDataVersion: Int

    public init(ttl: TimeInterval = 30 * 86_400, currentDataVersion: Int = FilmNormalizer.dataVersion) {
        self.ttl = ttl
        self.currentDataVersion = currentDataVersion
    }

    /// Plans from the cache states of the worklist IDs (one state per ID, in worklist order).
    ///
    /// Order: missing films first, then stale ones (oldest first), then rows made by an
    /// older normalizer. Negative answers wait for their `next_attempt_at`.
    public func plan(_ states: [CachedState], now: Date) -> Plan {
        var plan = Plan()
        var stale: [(id: String, fetchedAt: Date)] = []
        var upgrades: [String] = []
        let cutoff = now.addingTimeInterval(-ttl)
        for state in states {
            plan.considered += 1
            if let fetchedAt = state.fetchedAt {
                if fetchedAt <= cutoff {
                    stale.append((state.imdbID, fetchedAt))
                } else if (state.dataVersion ?? 0) < currentDataVersion {
                    upgrades.append(state.imdbID)
                } else {
                    plan.fresh += 1
                }
            } else if let status = state.lookupStatus, let next = state.nextAttemptAt, next > now {
                switch status {
                case .notFound: plan.notFoundAwaitingRecheck += 1
                case .failed: plan.failedAwaitingRetry += 1
                }
            } else {
                plan.toFetch.append(state.imdbID)
                plan.missing += 1
            }
        }
        stale.sort { $0.fetchedAt < $1.fetchedAt }
        plan.stale = stale.count
        plan.upgrades = upgrades.count
        plan.toFetch += stale.map(\.id) + upgrades
        return plan
    }
}

/// Tonight's work and why the rest is left alone.
public struct Plan: Sendable, Equatable {
    /// IDs to fetch, in the order to fetch them.
    public var toFetch: [String] = []
    public var considered = 0
    public var fresh = 0
    public var missing = 0
    public var stale = 0
    public var upgrades = 0
    public var notFoundAwaitingRecheck = 0
    public var failedAwaitingRetry = 0

    public init() {}
}
