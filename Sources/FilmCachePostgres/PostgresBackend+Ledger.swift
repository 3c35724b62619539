import FilmCacheKit
import Foundation
import PostgresNIO

/// The quota ledger shared by every host: the same rules as `CacheStore+Ledger.swift`, each
/// reservation, release and limit of one key made under that key's advisory lock, so that no two
/// hosts grant the same last calls.
extension PostgresBackend {
    /// The channel `markExhausted` notifies, with `"<key> <day>"`; every warm listens on it
    /// (``watchExhaustion(key:noticed:)``) and stops at once.
    package static let quotaChannel = "filmcache_quota"

    /// Reserves up to `count` calls (see `CacheStore.reserveCalls`): read the day's use and add to it
    /// in one transaction under the key's lock. Counted before they are sent: a crash can over-count
    /// by what was reserved and unsent, never under-count.
    public func reserveCalls(
        _ count: Int, key: String, day: QuotaDay, minute: Int?, dailyLimit: Int, usable: Int, runID: Int?
    ) async throws(StoreError) -> Int {
        guard count > 0 else { return 0 }
        return try await ledgerTransaction(key: key) { c, logger in
            let use = try await Self.dayUse(c, logger, key: key, day: day)
            guard use.exhaustedAt == nil else { return 0 }
            let granted = max(0, min(count, usable - use.used))
            guard granted > 0 else {
                try await c.run(
                    """
                    INSERT INTO quota_ledger (key_fingerprint, quota_day, daily_limit)
                    VALUES (\(key), \(day.key)::date, \(dailyLimit)) ON CONFLICT DO NOTHING
                    """, logger)
                return 0
            }
            try await c.run(
                """
                INSERT INTO quota_ledger (key_fingerprint, quota_day, used, daily_limit)
                VALUES (\(key), \(day.key)::date, \(granted), \(dailyLimit))
                ON CONFLICT (key_fingerprint, quota_day) DO UPDATE
                SET used = quota_ledger.used + excluded.used, daily_limit = excluded.daily_limit
                """, logger)
            try await c.run(
                """
                INSERT INTO quota_calls (key_fingerprint, minute, calls)
                VALUES (\(key), \(day.minute(clamping: minute)), \(granted))
                ON CONFLICT (key_fingerprint, minute) DO UPDATE SET calls = quota_calls.calls + excluded.calls
                """, logger)
            if let runID {
                try await c.run(
                    """
                    UPDATE runs SET reserved_calls = reserved_calls + \(granted) WHERE id = \(runID)
                    """, logger)
            }
            return granted
        }
    }

    /// Gives back reserved calls never sent, to the day and minute they were reserved on.
    public func releaseCalls(_ count: Int, key: String, day: QuotaDay, minute: Int?, runID: Int?)
        async throws(StoreError)
    {
        guard count > 0 else { return }
        try await ledgerTransaction(key: key) { c, logger in
            try await c.run(
                """
                UPDATE quota_ledger SET used = greatest(0, used - \(count))
                WHERE key_fingerprint = \(key) AND quota_day = \(day.key)::date
                """, logger)
            try await c.run(
                """
                UPDATE quota_calls SET calls = greatest(0, calls - \(count))
                WHERE key_fingerprint = \(key) AND minute = \(day.minute(clamping: minute))
                """, logger)
            if let runID {
                try await c.run(
                    "UPDATE runs SET reserved_calls = greatest(0, reserved_calls - \(count)) WHERE id = \(runID)",
                    logger)
            }
        }
    }

    /// `key`'s use of `day` (see `CacheStore.ledger(_:key:days:)`) and its own row, read in one statement.
    struct DayUse {
        /// Calls sent within the day's minutes, by runs in any quota time zone.
        var used: Int
        /// When OMDb said the limit was reached: on the day's row, or within the day on another zone's row.
        var exhaustedAt: Date?
        /// Whether the day has a row of its own.
        var hasRow: Bool
        var dailyLimit: Int?
        var resetObservedAt: Date?
    }

    /// Reads `key`'s use of `day`.
    static func dayUse(_ c: PostgresConnection, _ logger: Logger, key: String, day: QuotaDay) async throws -> DayUse {
        let minutes = day.minutes
        let row = try await c.rows(
            """
            SELECT l.key_fingerprint IS NOT NULL, l.daily_limit, l.reset_observed_at,
                   coalesce(l.exhausted_at,
                            (SELECT min(exhausted_at) FROM quota_ledger WHERE key_fingerprint = \(key)
                             AND exhausted_at >= \(day.start.wholeSecond) AND exhausted_at < \(day.nextReset.wholeSecond))),
                   (SELECT coalesce(sum(calls), 0) FROM quota_calls WHERE key_fingerprint = \(key)
                    AND minute >= \(minutes.lowerBound) AND minute < \(minutes.upperBound))
            FROM (SELECT 1) AS one
            LEFT JOIN quota_ledger AS l ON l.key_fingerprint = \(key) AND l.quota_day = \(day.key)::date
            """, logger
        ).first
        guard let row else { return DayUse(used: 0, hasRow: false) }
        let (hasRow, limit, reset, exhausted, used) = try row.decode((Bool, Int?, Date?, Date?, Int).self)
        return DayUse(used: used, exhaustedAt: exhausted, hasRow: hasRow, dailyLimit: limit, resetObservedAt: reset)
    }

    /// Records OMDb's "limit reached" (see `CacheStore.markExhausted`), making the day's row when it
    /// has none, and tells every listening warm on `filmcache_quota` when it commits.
    public func markExhausted(key: String, day: String, dailyLimit: Int, at instant: Date) async throws(StoreError) {
        let notice = "\(key) \(day)"
        try await ledgerTransaction(key: key) { c, logger in
            try await c.run(
                """
                INSERT INTO quota_ledger (key_fingerprint, quota_day, daily_limit)
                VALUES (\(key), \(day)::date, \(dailyLimit)) ON CONFLICT DO NOTHING
                """, logger)
            try await c.run(
                """
                UPDATE quota_ledger SET exhausted_at = coalesce(exhausted_at, \(instant.wholeSecond))
                WHERE key_fingerprint = \(key) AND quota_day = \(day)::date
                """, logger)
            try await c.run("SELECT pg_notify(\(Self.quotaChannel), \(notice))", logger)
        }
    }

    /// Records `instant` as the observed reset of the latest earlier quota day that ran out.
    public func recordResetObserved(key: String, before day: String, at instant: Date) async throws(StoreError) {
        try await withConnection { c, logger in
            try await c.run(
                """
                UPDATE quota_ledger SET reset_observed_at = \(instant.wholeSecond)
                WHERE key_fingerprint = \(key) AND quota_day = (
                    SELECT max(quota_day) FROM quota_ledger
                    WHERE key_fingerprint = \(key) AND quota_day < \(day)::date AND exhausted_at IS NOT NULL)
                  AND reset_observed_at IS NULL
                """, logger)
        }
    }

    public func ledger(key: String, day: QuotaDay) async throws(StoreError) -> LedgerEntry? {
        try await withConnection { c, logger in
            try await Self.ledger(c, logger, key: key, day: day)
        }
    }

    /// `key`'s entries for `days` over one connection taken once.
    public func ledger(key: String, days: [QuotaDay]) async throws(StoreError) -> [String: LedgerEntry] {
        try await withConnection { c, logger in
            var entries: [String: LedgerEntry] = [:]
            for day in days {
                if let entry = try await Self.ledger(c, logger, key: key, day: day) { entries[day.key] = entry }
            }
            return entries
        }
    }

    /// `key`'s entry for `day`, if any call was counted or a limit seen within it.
    static func ledger(_ c: PostgresConnection, _ logger: Logger, key: String, day: QuotaDay) async throws
        -> LedgerEntry?
    {
        let use = try await dayUse(c, logger, key: key, day: day)
        guard use.hasRow || use.used > 0 || use.exhaustedAt != nil else { return nil }
        return LedgerEntry.row(
            keyFingerprint: key, day: day.key, used: use.used, dailyLimit: use.dailyLimit ?? 0,
            exhaustedAt: use.exhaustedAt, resetObservedAt: use.resetObservedAt)
    }

    /// Today's entry for planning: `key`'s, or without a key the busiest key's (an exhausted key
    /// first, whatever its count).
    public func ledgerForPlanning(key: String?, day: QuotaDay) async throws(StoreError) -> LedgerEntry? {
        if let key { return try await ledger(key: key, day: day) }
        let minutes = day.minutes
        return try await withConnection { c, logger in
            let keys = try await c.rows(
                """
                SELECT key_fingerprint FROM quota_ledger WHERE quota_day = \(day.key)::date UNION
                SELECT key_fingerprint FROM quota_calls
                WHERE minute >= \(minutes.lowerBound) AND minute < \(minutes.upperBound)
                """, logger
            ).map { try $0.decode(String.self) }
            func weight(_ entry: LedgerEntry) -> (Int, Int) { (entry.exhaustedAt == nil ? 0 : 1, entry.used) }
            var busiest: LedgerEntry?
            for key in keys {
                guard let entry = try await Self.ledger(c, logger, key: key, day: day) else { continue }
                if let b = busiest, weight(b) >= weight(entry) { continue }
                busiest = entry
            }
            return busiest
        }
    }

    /// Renames a legacy four-digit fingerprint to the full one (see `CacheStore.adoptLegacyFingerprint`).
    public func adoptLegacyFingerprint(_ legacy: String, as full: String) async throws(StoreError) -> Bool {
        guard legacy != full else { return false }
        return try await ledgerTransaction(key: full) { c, logger in
            let any = try await c.rows(
                """
                SELECT 1 FROM quota_ledger WHERE key_fingerprint = \(legacy)
                UNION ALL SELECT 1 FROM runs WHERE key_fingerprint = \(legacy) LIMIT 1
                """, logger)
            guard !any.isEmpty else { return false }
            try await c.run(
                """
                INSERT INTO quota_ledger (key_fingerprint, quota_day, used, daily_limit, exhausted_at, reset_observed_at)
                SELECT \(full), quota_day, used, daily_limit, exhausted_at, reset_observed_at FROM quota_ledger
                WHERE key_fingerprint = \(legacy)
                ON CONFLICT (key_fingerprint, quota_day) DO UPDATE SET used = quota_ledger.used + excluded.used,
                    exhausted_at = coalesce(quota_ledger.exhausted_at, excluded.exhausted_at),
                    reset_observed_at = coalesce(quota_ledger.reset_observed_at, excluded.reset_observed_at)
                """, logger)
            try await c.run(
                """
                INSERT INTO quota_calls (key_fingerprint, minute, calls)
                SELECT \(full), minute, calls FROM quota_calls WHERE key_fingerprint = \(legacy)
                ON CONFLICT (key_fingerprint, minute) DO UPDATE SET calls = quota_calls.calls + excluded.calls
                """, logger)
            try await c.run("DELETE FROM quota_ledger WHERE key_fingerprint = \(legacy)", logger)
            try await c.run("DELETE FROM quota_calls WHERE key_fingerprint = \(legacy)", logger)
            try await c.run("UPDATE runs SET key_fingerprint = \(full) WHERE key_fingerprint = \(legacy)", logger)
            return true
        }
    }

    /// Every key in the ledger, busiest first: by calls on `today`, then since `since`, then latest use.
    public func ledgerKeys(today: String, since: String) async throws(StoreError) -> [String] {
        try await withConnection { c, logger in
            try await c.rows(
                """
                SELECT key_fingerprint FROM quota_ledger GROUP BY key_fingerprint
                ORDER BY sum(CASE WHEN quota_day = \(today)::date THEN used ELSE 0 END) DESC,
                         sum(CASE WHEN quota_day >= \(since)::date THEN used ELSE 0 END) DESC,
                         max(quota_day) DESC, key_fingerprint
                """, logger
            ).map { try $0.decode(String.self) }
        }
    }

    public func callsByMinute(key: String) async throws(StoreError) -> [Int: Int] {
        try await withConnection { c, logger in
            let rows = try await c.rows(
                "SELECT minute, calls FROM quota_calls WHERE key_fingerprint = \(key) AND calls > 0", logger
            ).map { try $0.decode((Int, Int).self) }
            return Dictionary(rows, uniquingKeysWith: +)
        }
    }

    public func observedResets(key: String) async throws(StoreError) -> [Date] {
        try await withConnection { c, logger in
            try await c.rows(
                """
                SELECT reset_observed_at FROM quota_ledger
                WHERE key_fingerprint = \(key) AND reset_observed_at IS NOT NULL ORDER BY reset_observed_at
                """, logger
            ).map { try $0.decode(Date.self) }
        }
    }

    public func latestDailyLimit(key: String) async throws(StoreError) -> Int? {
        try await withConnection { c, logger in
            try await c.rows(
                """
                SELECT daily_limit FROM quota_ledger WHERE key_fingerprint = \(key) ORDER BY quota_day DESC LIMIT 1
                """, logger
            ).first?.decode(Int.self)
        }
    }
}
