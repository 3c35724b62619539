import Foundation

/// One key's quota today and over recent days, with its runs: what `filmcache quota` shows.
public struct QuotaStatus: Sendable, Equatable {
    /// The key shown, by fingerprint; `nil` when no key was given and the ledger is empty.
    public var keyFingerprint: String?
    /// Whether the ledger has any row for the key.
    public var keyInLedger: Bool
    /// The ledger's other keys, busiest first.
    public var otherKeys: [String]
    /// The current quota day.
    public var today: QuotaDay
    /// The key's limit and the reserve kept back from it.
    public var budget: QuotaBudget
    /// Calls counted today.
    public var used: Int
    /// When OMDb said "limit reached" today, if it did.
    public var exhaustedAt: Date?
    /// Every day of the window, oldest first, today last; days without calls included.
    public var history: [DayUse]
    /// Every observed reset the ledger holds for the key, oldest first.
    public var observedResets: [Date]
    /// The key's runs started within the window, oldest first.
    public var runs: [RunRecord]
    /// When the status was read.
    public var now: Date

    /// One quota day's use.
    public struct DayUse: Sendable, Equatable {
        /// The quota day, `"2026-11-21"`.
        public var day: String
        /// Calls counted that day.
        public var used: Int
        /// The limit the day's warms were configured with; `nil` on a day without calls.
        public var dailyLimit: Int?
        /// When OMDb said "limit reached" that day.
        public var exhaustedAt: Date?
        /// The first answer after that exhaustion: when the day was seen to have turned over.
        public var resetObservedAt: Date?
    }

    /// Calls still usable today: the budget less what is used, or none once OMDb said the limit is reached.
    public var left: Int { exhaustedAt == nil ? budget.left(used: used) : 0 }

    /// When the quota day turns over: the next midnight in the quota's zone.
    public var nextReset: Date { today.nextReset }

    /// The latest observed reset, if any.
    package var latestObservedReset: Date? { observedResets.last }

    /// Reads `keyFingerprint`'s status at `now` (without a key, the busiest key's) over the last `days` quota days.
    ///
    /// The limit is `dailyLimit` when given, else the one today's ledger row (or the key's latest
    /// row) was configured with, else `settings.dailyLimit`; the reserve is `settings.reservePercent`.
    public static func load(
        store: any QuotaReportStore, keyFingerprint: String?, settings: PlanSettings, dailyLimit: Int? = nil, now: Date,
        days: Int = 30
    ) async throws(StoreError) -> QuotaStatus {
        let today = QuotaDay(containing: now, in: settings.quotaTimeZone)
        var window = [today]
        while window.count < max(1, days) {
            window.insert(QuotaDay(containing: window[0].start.addingTimeInterval(-1), in: today.zone), at: 0)
        }
        let keys = try await store.ledgerKeys(today: today.key, since: window[0].key)
        // A fingerprint given short names the ledger key it begins (an exact name first).
        let key =
            keyFingerprint.map { given in keys.contains(given) ? given : keys.first { $0.hasPrefix(given) } ?? given }
            ?? keys.first
        var rows: [String: LedgerEntry] = [:]
        var observed: [Date] = []
        var runs: [RunRecord] = []
        var limit = dailyLimit
        if let key {
            // Each day counts what was sent within it, by runs in any quota time zone.
            rows = try await store.ledger(key: key, days: window)
            observed = try await store.observedResets(key: key)
            runs = try await store.runs(key: key, since: window[0].start)
            if limit == nil, let todays = rows[today.key]?.dailyLimit, todays > 0 { limit = todays }
            if limit == nil { limit = try await store.latestDailyLimit(key: key) }
        }
        return QuotaStatus(
            keyFingerprint: key, keyInLedger: key.map(keys.contains) ?? false, otherKeys: keys.filter { $0 != key },
            today: today,
            budget: QuotaBudget(limit: limit ?? settings.dailyLimit, reservePercent: settings.reservePercent),
            used: rows[today.key]?.used ?? 0, exhaustedAt: rows[today.key]?.exhaustedAt,
            history: window.map { day in
                let row = rows[day.key]
                return DayUse(
                    day: day.key, used: row?.used ?? 0,
                    dailyLimit: row.flatMap { $0.dailyLimit > 0 ? $0.dailyLimit : nil },
                    exhaustedAt: row?.exhaustedAt,
                    resetObservedAt: row?.resetObservedAt)
            },
            observedResets: observed, runs: runs, now: now)
    }
}
