import Foundation

/// Tonight's plan with its budget: what `filmcache plan` prints and `warm` starts from.
public struct NightPlan: Sendable, Equatable {
    /// The ordered work, cut to the calls left today.
    public var plan: Plan
    /// The quota day the plan was made in.
    package var quotaDay: String
    /// Calls usable per quota day (the limit less the reserve).
    public var callsPerDay: Int
    /// Calls already counted today for the key.
    package var callsUsed: Int
    /// Calls left today before the reserve.
    package var callsLeft: Int
    /// OMDb said "limit reached" earlier today.
    public var exhausted: Bool
    /// Worklist lines that named no ID.
    package var skippedLines: Int
    /// What each worklist file held.
    public var files: [WorklistFile] = []

    /// Quota days until the deferred IDs are fetched, at a full day's budget each.
    public var daysToClear: Int? { plan.daysToClear(callsPerDay: callsPerDay) }

    /// Plans `worklist` against the cache at `now` with `configuration`'s freshness and budget.
    ///
    /// The ledger row of `keyFingerprint` gives today's use; without a key the busiest key
    /// of the day is assumed, so the plan never promises calls a shared key lacks.
    public static func make(
        worklist: Worklist, store: any PlanningStore, settings: PlanSettings, keyFingerprint: String?, now: Date
    ) async throws(StoreError) -> NightPlan {
        try await make(worklist: worklist, store: store, settings: settings, now: now) { keyFingerprint }
    }

    /// Plans `worklist` as ``make(worklist:store:settings:keyFingerprint:now:)`` does, with the key's
    /// ledger name from `ledgerKey`, asked for once the worklist is planned.
    ///
    /// A key's name is a slow hash (``KeyFingerprint``), worked out on a thread of its own from the
    /// moment the key is read: the plan, ranked in full, is made meanwhile and cut to the calls
    /// left once the ledger has answered.
    package static func make(
        worklist: Worklist, store: any PlanningStore, settings: PlanSettings, now: Date,
        ledgerKey: @escaping @Sendable () async throws(StoreError) -> String?
    ) async throws(StoreError) -> NightPlan {
        let day = QuotaDay(containing: now, in: settings.quotaTimeZone)
        let budget = QuotaBudget(limit: settings.dailyLimit, reservePercent: settings.reservePercent)
        let planner = Planner(freshness: settings.freshness)
        // Ranked first, on this task: a read-only SQLite cache plans on this thread, with no other
        // made to run it, while the key's name is worked out on its own thread.
        var plan = try await store.plan(worklist, planner: planner, now: now, budget: nil)
        let entry = try await store.ledgerForPlanning(key: try await ledgerKey(), day: day)
        let used = entry?.used ?? 0
        let exhausted = entry?.exhaustedAt != nil
        let left = exhausted ? 0 : budget.left(used: used)
        plan.cut(to: left)
        return NightPlan(
            plan: plan, quotaDay: day.key, callsPerDay: budget.usable, callsUsed: used, callsLeft: left,
            exhausted: exhausted, skippedLines: worklist.warnings.count, files: worklist.files)
    }
}

/// What a plan depends on besides the worklist: freshness and the budget.
public struct PlanSettings: Sendable, Equatable {
    /// Which cached answers are still good.
    public var freshness = FreshnessPolicy()
    /// OMDb's daily limit for the key.
    public var dailyLimit = Setting.dailyLimit.default
    /// Percent of the daily limit left for the apps sharing the key.
    public var reservePercent = Setting.reserve.default
    /// The time zone whose midnight starts a quota day.
    public var quotaTimeZone = Setting.quotaTimezone.default

    public init() {}
}
