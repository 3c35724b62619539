import FilmCacheKit
import Foundation

/// Reading the quota ledger and the run history back, for `quota` and the metrics file.
extension CacheStore {
    /// Every key in the ledger, busiest first: by calls on `today`, then since `since`, then latest use.
    public func ledgerKeys(today: String, since: String) throws(StoreError) -> [String] {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                """
                SELECT key_fingerprint FROM quota_ledger GROUP BY key_fingerprint
                ORDER BY sum(CASE WHEN quota_day = ?1 THEN used ELSE 0 END) DESC,
                         sum(CASE WHEN quota_day >= ?2 THEN used ELSE 0 END) DESC,
                         max(quota_day) DESC, key_fingerprint
                """
            ).query([.text(today), .text(since)]) { $0.text(0) ?? "" }
        }
    }

    /// `key`'s calls by the minute (since 1970 UTC) they were counted in; minutes with none left out.
    public func callsByMinute(key: String) throws(StoreError) -> [Int: Int] {
        try withConnection { c throws(StoreError) in
            let rows = try c.db.prepare(
                "SELECT minute, calls FROM quota_calls WHERE key_fingerprint = ? AND calls > 0"
            ).query([.text(key)]) { ($0.int(0) ?? 0, $0.int(1) ?? 0) }
            return Dictionary(rows, uniquingKeysWith: +)
        }
    }

    /// Every observed reset recorded for `key`, oldest first.
    public func observedResets(key: String) throws(StoreError) -> [Date] {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                "SELECT reset_observed_at FROM quota_ledger WHERE key_fingerprint = ? AND reset_observed_at IS NOT NULL"
                    + " ORDER BY reset_observed_at"
            ).query([.text(key)]) { $0.text(0).flatMap(Timestamp.parse) }.compactMap { $0 }
        }
    }

    /// The daily limit the latest warm of `key` was configured with, if the ledger has any row for it.
    public func latestDailyLimit(key: String) throws(StoreError) -> Int? {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                "SELECT daily_limit FROM quota_ledger WHERE key_fingerprint = ? ORDER BY quota_day DESC LIMIT 1"
            ).query([.text(key)]) { $0.int(0) }.first ?? nil
        }
    }

    /// Runs started at or after `since`, oldest first; only `key`'s when a key is given.
    public func runs(key: String?, since: Date) throws(StoreError) -> [RunRecord] {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                """
                SELECT id, started_at, finished_at, key_fingerprint, considered, fresh, fetched, not_found, failed,
                       calls, outcome
                FROM runs WHERE started_at >= ?1 AND (?2 IS NULL OR key_fingerprint = ?2) ORDER BY started_at, id
                """
            ).query([.text(Timestamp.format(since)), .optional(key)]) { row in
                RunRecord(
                    id: row.int(0) ?? 0, startedAt: row.text(1).flatMap(Timestamp.parse) ?? .distantPast,
                    finishedAt: row.text(2).flatMap(Timestamp.parse), keyFingerprint: row.text(3) ?? "",
                    considered: row.int(4) ?? 0, fresh: row.int(5) ?? 0, fetched: row.int(6) ?? 0,
                    notFound: row.int(7) ?? 0, failed: row.int(8) ?? 0, calls: row.int(9) ?? 0, outcome: row.text(10))
            }
        }
    }

    /// When the latest completed run (exit 0 or 75: done or stopped early on purpose) finished; `nil` if none has.
    public func lastCompletedRunFinish() throws(StoreError) -> Date? {
        let outcomes = RunRecord.completedOutcomes
        return try withConnection { c throws(StoreError) in
            try c.db.prepare(
                "SELECT max(finished_at) FROM runs WHERE outcome IN ("
                    + Array(repeating: "?", count: outcomes.count).joined(separator: ", ") + ")"
            ).query(outcomes.map { .text($0) }) { $0.text(0).flatMap(Timestamp.parse) }.first ?? nil
        }
    }
}
