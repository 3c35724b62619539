import Foundation

/// The daily quota ledger and the run history.
extension CacheStore {
    /// Reserves up to `count` calls for `key` on `day`, never past `usable`; returns how many were granted.
    ///
    /// One IMMEDIATE transaction reads and bumps the count, so processes sharing the
    /// database share one budget. Calls are counted here, before they are sent: a crash
    /// can only over-count (by what was reserved and unsent), never under-count.
    public func reserveCalls(_ count: Int, key: String, day: String, dailyLimit: Int, usable: Int)
        throws(StoreError) -> Int
    {
        guard count > 0 else { return 0 }
        return try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                try c.db.cached(
                    "INSERT OR IGNORE INTO quota_ledger (key_fingerprint, quota_day, daily_limit) VALUES (?, ?, ?)"
                ).run([.text(key), .text(day), .integer(dailyLimit)])
                let row = try c.db.cached(
                    "SELECT used, exhausted_at FROM quota_ledger WHERE key_fingerprint = ? AND quota_day = ?"
                ).query([.text(key), .text(day)]) { ($0.int(0) ?? 0, $0.text(1)) }.first
                guard let (used, exhaustedAt) = row, exhaustedAt == nil else { return 0 }
                let granted = max(0, min(count, usable - used))
                if granted > 0 {
                    try c.db.cached(
                        "UPDATE quota_ledger SET used = used + ?, daily_limit = ?"
                            + " WHERE key_fingerprint = ? AND quota_day = ?"
                    ).run([.integer(granted), .integer(dailyLimit), .text(key), .text(day)])
                }
                return granted
            }
        }
    }

    /// Gives back reserved calls that were never sent.
    public func releaseCalls(_ count: Int, key: String, day: String) throws(StoreError) {
        guard count > 0 else { return }
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                "UPDATE quota_ledger SET used = max(0, used - ?) WHERE key_fingerprint = ? AND quota_day = ?"
            ).run([.integer(count), .text(key), .text(day)])
        }
    }

    /// Records that OMDb answered "limit reached" for `key` on `day`: no more calls that day.
    public func markExhausted(key: String, day: String, at instant: Date) throws(StoreError) {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                "UPDATE quota_ledger SET exhausted_at = coalesce(exhausted_at, ?)"
                    + " WHERE key_fingerprint = ? AND quota_day = ?"
            ).run([.text(Timestamp.format(instant)), .text(key), .text(day)])
        }
    }

    /// Records `instant` as the observed reset of the latest earlier quota day that ran out.
    ///
    /// Called with the first successful call of a run: the first success after an exhaustion
    /// marks when OMDb's day really turned over, which OMDb does not document.
    public func recordResetObserved(key: String, before day: String, at instant: Date) throws(StoreError) {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                """
                UPDATE quota_ledger SET reset_observed_at = ?
                WHERE key_fingerprint = ? AND quota_day = (
                    SELECT max(quota_day) FROM quota_ledger
                    WHERE key_fingerprint = ? AND quota_day < ? AND exhausted_at IS NOT NULL)
                  AND reset_observed_at IS NULL
                """
            ).run([.text(Timestamp.format(instant)), .text(key), .text(key), .text(day)])
        }
    }

    /// The ledger entry for `key` on `day`, if any call was reserved that day.
    public func ledger(key: String, day: String) throws(StoreError) -> LedgerEntry? {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                "SELECT used, daily_limit, exhausted_at, reset_observed_at FROM quota_ledger"
                    + " WHERE key_fingerprint = ? AND quota_day = ?"
            ).query([.text(key), .text(day)]) { row in
                LedgerEntry(
                    keyFingerprint: key, day: day, used: row.int(0) ?? 0, dailyLimit: row.int(1) ?? 0,
                    exhaustedAt: row.text(2).flatMap(Timestamp.parse),
                    resetObservedAt: row.text(3).flatMap(Timestamp.parse))
            }.first
        }
    }

    /// Today's ledger entry for planning: `key`'s, or without a key the busiest key's.
    public func ledgerForPlanning(key: String?, day: String) throws(StoreError) -> LedgerEntry? {
        if let key { return try ledger(key: key, day: day) }
        let busiest = try withConnection { c throws(StoreError) in
            try c.db.prepare("SELECT key_fingerprint FROM quota_ledger WHERE quota_day = ? ORDER BY used DESC LIMIT 1")
                .query([.text(day)]) { $0.text(0) }.first ?? nil
        }
        return try busiest.flatMap { (key) throws(StoreError) in try ledger(key: key, day: day) }
    }

    /// Starts a run record and returns its id.
    public func beginRun(startedAt: Date, key: String) throws(StoreError) -> Int {
        try withConnection { c throws(StoreError) in
            try c.db.prepare("INSERT INTO runs (started_at, key_fingerprint) VALUES (?, ?)")
                .run([.text(Timestamp.format(startedAt)), .text(key)])
            return try c.db.prepare("SELECT last_insert_rowid()").query { $0.int(0) ?? 0 }.first ?? 0
        }
    }

    /// Completes a run record with its counts and how it ended.
    public func finishRun(id: Int, summary: WarmSummary, finishedAt: Date, outcome: String) throws(StoreError) {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                "UPDATE runs SET finished_at = ?, considered = ?, fresh = ?, fetched = ?, not_found = ?, failed = ?,"
                    + " calls = ?, outcome = ? WHERE id = ?"
            ).run([
                .text(Timestamp.format(finishedAt)), .integer(summary.considered), .integer(summary.fresh),
                .integer(summary.fetched), .integer(summary.notFound), .integer(summary.failed),
                .integer(summary.calls), .text(outcome), .integer(id),
            ])
        }
    }
}

/// One key's quota use on one quota day.
public struct LedgerEntry: Sendable, Equatable {
    public var keyFingerprint: String
    public var day: String
    /// Calls counted so far (reserved before sending).
    public var used: Int
    public var dailyLimit: Int
    /// When OMDb first said the limit was reached that day.
    public var exhaustedAt: Date?
    /// The first successful call after an exhaustion: the observed reset.
    public var resetObservedAt: Date?
}
