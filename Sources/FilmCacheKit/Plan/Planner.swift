import Foundation

/// Decides what a run fetches: what is missing or stale, in priority order, cut to the budget.
public struct Planner: Sendable {
    /// Which answers are still good.
    public var freshness: FreshnessPolicy
    /// The normalizer version rows must carry to count as current.
    public var currentDataVersion: Int

    public init(freshness: FreshnessPolicy = FreshnessPolicy(), currentDataVersion: Int = FilmNormalizer.dataVersion) {
        self.freshness = freshness
        self.currentDataVersion = currentDataVersion
    }

    /// Plans from the cache states of the worklist IDs (one state per ID, in worklist order).
    ///
    /// Order: missing films first (IDs named by more worklists first, then worklist order);
    /// then stale rows by how overdue they are (age over TTL) times how many worklists name
    /// them; then rows made by an older normalizer. Negative answers wait for their
    /// `next_attempt_at`. With a `budget` (calls left today), the rest is deferred.
    public func plan(_ states: [CachedState], demand: [String: Int] = [:], now: Date, budget: Int? = nil) -> Plan {
        var plan = Plan()
        var missing: [Ranked] = []
        var stale: [Ranked] = []
        var upgrades: [Ranked] = []
        for (position, state) in states.enumerated() {
            plan.considered += 1
            let named = Double(max(demand[state.imdbID] ?? 1, 1))
            if let fetchedAt = state.fetchedAt {
                switch freshness.judge(
                    fetchedAt: fetchedAt, dataVersion: state.dataVersion ?? 0,
                    title: state.age ?? TitleAge(releasedAt: nil, isRunningSeries: false), at: now,
                    currentDataVersion: currentDataVersion)
                {
                case .stale(let overdue):
                    stale.append(Ranked(id: state.imdbID, score: overdue * named, position: position))
                case .upgrade: upgrades.append(Ranked(id: state.imdbID, score: named, position: position))
                case .fresh: plan.fresh += 1
                }
            } else if let status = state.lookupStatus, let next = state.nextAttemptAt, next > now {
                switch status {
                case .notFound: plan.notFoundAwaitingRecheck += 1
                case .failed: plan.failedAwaitingRetry += 1
                }
            } else {
                if state.lookupStatus == .failed { plan.failedBefore[state.imdbID] = state.lookupAttempts ?? 1 }
                missing.append(Ranked(id: state.imdbID, score: named, position: position))
            }
        }
        plan.missing = missing.count
        plan.stale = stale.count
        plan.upgrades = upgrades.count
        var ordered = missing.sorted(by: Ranked.before).map(\.id)
        ordered += stale.sorted(by: Ranked.before).map(\.id)
        ordered += upgrades.sorted(by: Ranked.before).map(\.id)
        if let budget, ordered.count > max(budget, 0) {
            plan.deferred = Array(ordered[max(budget, 0)...])
            ordered.removeSubrange(max(budget, 0)...)
        }
        plan.toFetch = ordered
        return plan
    }

    /// An ID with its priority: higher score first, then earlier in the worklists.
    private struct Ranked {
        var id: String
        var score: Double
        var position: Int

        static func before(_ a: Ranked, _ b: Ranked) -> Bool {
            a.score != b.score ? a.score > b.score : a.position < b.position
        }
    }
}

/// Tonight's work and why the rest is left alone.
public struct Plan: Sendable, Equatable {
    /// IDs to fetch, in the order to fetch them, within today's budget.
    public var toFetch: [String] = []
    /// IDs due but beyond today's budget, in the order they would follow.
    public var deferred: [String] = []
    /// Distinct worklist IDs.
    public var considered = 0
    /// Cached, within their TTL and made by the current normalizer.
    public var fresh = 0
    /// Not cached (including not-found and failed IDs whose wait is over).
    public var missing = 0
    /// Cached but past their TTL.
    public var stale = 0
    /// Fresh but made by an older normalizer.
    public var upgrades = 0
    public var notFoundAwaitingRecheck = 0
    public var failedAwaitingRetry = 0
    /// For due IDs whose earlier runs failed: how many runs failed (sets the next backoff).
    public var failedBefore: [String: Int] = [:]

    public init() {}

    /// Every ID due, within the budget or not.
    public var due: Int { toFetch.count + deferred.count }

    /// Days until the deferred backlog is fetched at `callsPerDay`, counting today's share as done.
    ///
    /// `nil` when nothing is deferred; `Int.max` when no calls are available at all.
    public func daysToClear(callsPerDay: Int) -> Int? {
        guard !deferred.isEmpty else { return nil }
        guard callsPerDay > 0 else { return Int.max }
        return (deferred.count + callsPerDay - 1) / callsPerDay
    }
}
