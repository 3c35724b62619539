import FilmCacheKit
import Foundation

/// The daily quota ledger and the run history.
extension CacheStore {
    /// Reserves up to `count` calls for `key` on `day`, never past `usable`; returns how many were granted.
    ///
    /// One IMMEDIATE transaction reads and bumps the count, so processes sharing the
    /// database share one budget. Calls are counted here, before they are sent: a crash
    /// can only over-count (by what was reserved and unsent), never under-count.
    /// The calls are charged to `minute` (minutes since 1970 UTC; the day's first when not given)
    /// and to `day`'s row, and the day's use is the calls of every minute within it: runs naming
    /// another quota time zone share the one budget.
    /// With a `runID` the run's `reserved_calls` grows in the same transaction, so a run that is
    /// killed can be closed with what the ledger counted for it.
    public func reserveCalls(
        _ count: Int, key: String, day: QuotaDay, minute: Int? = nil, dailyLimit: Int, usable: Int,
        runID: Int? = nil
    ) throws(StoreError) -> Int {
        guard count > 0 else { return 0 }
        return try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                let use = try Self.ledger(c.db, key: key, days: [day])[day.key]
                guard use?.exhaustedAt == nil else { return 0 }
                let used = use?.used ?? 0
                let granted = max(0, min(count, usable - used))
                if granted > 0 {
                    try c.db.cached(
                        "INSERT INTO quota_ledger (key_fingerprint, quota_day, used, daily_limit) VALUES (?1, ?2, ?3, ?4)"
                            + " ON CONFLICT DO UPDATE SET used = used + ?3, daily_limit = ?4"
                    ).run([.text(key), .text(day.key), .integer(granted), .integer(dailyLimit)])
                    try c.db.cached(
                        "INSERT INTO quota_calls (key_fingerprint, minute, calls) VALUES (?1, ?2, ?3)"
                            + " ON CONFLICT DO UPDATE SET calls = calls + ?3"
                    ).run([.text(key), .integer(day.minute(clamping: minute)), .integer(granted)])
                    if let runID {
                        try c.db.cached("UPDATE runs SET reserved_calls = reserved_calls + ? WHERE id = ?")
                            .run([.integer(granted), .integer(runID)])
                    }
                } else {
                    try c.db.cached(
                        "INSERT OR IGNORE INTO quota_ledger (key_fingerprint, quota_day, daily_limit) VALUES (?, ?, ?)"
                    ).run([.text(key), .text(day.key), .integer(dailyLimit)])
                }
                return granted
            }
        }
    }

    /// Gives back reserved calls that were never sent, to the day and minute they were reserved on.
    public func releaseCalls(
        _ count: Int, key: String, day: QuotaDay, minute: Int? = nil, runID: Int? = nil
    ) throws(StoreError) {
        guard count > 0 else { return }
        try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                try c.db.prepare(
                    "UPDATE quota_ledger SET used = max(0, used - ?) WHERE key_fingerprint = ? AND quota_day = ?"
                ).run([.integer(count), .text(key), .text(day.key)])
                try c.db.prepare(
                    "UPDATE quota_calls SET calls = max(0, calls - ?) WHERE key_fingerprint = ? AND minute = ?"
                ).run([.integer(count), .text(key), .integer(day.minute(clamping: minute))])
                if let runID {
                    try c.db.prepare("UPDATE runs SET reserved_calls = max(0, reserved_calls - ?) WHERE id = ?")
                        .run([.integer(count), .integer(runID)])
                }
            }
        }
    }

    /// The calls `key` was charged in `minutes` (minutes since 1970 UTC), by runs in any quota time zone.
    private static func callsSent(_ db: SQLiteConnection, key: String, in minutes: Range<Int>) throws(StoreError)
        -> Int
    {
        try db.cached(
            "SELECT coalesce(sum(calls), 0) FROM quota_calls WHERE key_fingerprint = ? AND minute >= ? AND minute < ?"
        ).query([.text(key), .integer(minutes.lowerBound), .integer(minutes.upperBound)]) { $0.int(0) ?? 0 }
            .first ?? 0
    }

    /// Records that OMDb answered "limit reached" for `key` on `day` (the day it was observed on):
    /// no more calls that day. The day's row is made when it has none yet (the first call after a
    /// midnight can be the one that is refused), so the mark always lands.
    public func markExhausted(key: String, day: String, dailyLimit: Int = 0, at instant: Date) throws(StoreError) {
        try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                try c.db.prepare(
                    "INSERT OR IGNORE INTO quota_ledger (key_fingerprint, quota_day, daily_limit) VALUES (?, ?, ?)"
                ).run([.text(key), .text(day), .integer(dailyLimit)])
                try c.db.prepare(
                    "UPDATE quota_ledger SET exhausted_at = coalesce(exhausted_at, ?)"
                        + " WHERE key_fingerprint = ? AND quota_day = ?"
                ).run([.text(Timestamp.format(instant)), .text(key), .text(day)])
            }
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

    /// The ledger entry for `key` on `day`, if any call was counted or a limit was seen within it;
    /// its use counts calls sent within the day by runs in any quota time zone.
    public func ledger(key: String, day: QuotaDay) throws(StoreError) -> LedgerEntry? {
        try withConnection { c throws(StoreError) in try Self.ledger(c.db, key: key, days: [day])[day.key] }
    }

    /// `key`'s entries for `days`, by day key, read in one transaction: one snapshot of the ledger
    /// for a month of `quota`, and one lock taken, not one a day.
    public func ledger(key: String, days: [QuotaDay]) throws(StoreError) -> [String: LedgerEntry] {
        guard !days.isEmpty else { return [:] }
        return try withConnection { c throws(StoreError) in
            try c.db.transaction(deferred: true) { () throws(StoreError) in
                try Self.ledger(c.db, key: key, days: days)
            }
        }
    }

    /// `key`'s entries for `days`, by day key: a day's use is the calls sent in its minutes (by runs
    /// in any quota time zone), and it ran out when OMDb said so within it (or on the day's own row).
    /// The day's row is not the count: rows are keyed by the calendar day in the zone of the run that
    /// wrote them, and the same date names different hours in different zones.
    ///
    /// The days' own rows and the instants a limit was reached are read for all the days at once,
    /// in two statements over the span they cover, and split into days here (the earliest instant
    /// within a day stands for a day whose own row has none); each day's calls are summed by
    /// SQLite, one cached statement a day, so a key that called in every minute is not read a
    /// minute at a time. Day keys and instants compare as text, as SQLite compares them; minutes
    /// as integers.
    private static func ledger(_ db: SQLiteConnection, key: String, days: [QuotaDay]) throws(StoreError)
        -> [String: LedgerEntry]
    {
        // A day's key is written out once: `CalendarDate.description` formats it anew at each use.
        let dayKeys = days.map(\.key)
        let wanted = Set(dayKeys)
        let bounds = days.map { (start: Timestamp.format($0.start), end: Timestamp.format($0.nextReset)) }
        let keys = (low: wanted.min() ?? "", high: wanted.max() ?? "")
        let span = (start: bounds.map(\.start).min() ?? "", end: bounds.map(\.end).max() ?? "")
        var rows: [String: (limit: Int, resetObserved: Date?, exhausted: String?)] = [:]
        try db.cached(
            "SELECT quota_day, daily_limit, reset_observed_at, exhausted_at FROM quota_ledger"
                + " WHERE key_fingerprint = ? AND quota_day >= ? AND quota_day <= ?"
        ).forEach([.text(key), .text(keys.low), .text(keys.high)]) { row in
            guard let day = row.text(0), wanted.contains(day) else { return }
            rows[day] = (row.int(1) ?? 0, row.text(2).flatMap(Timestamp.parse), row.text(3))
        }
        let limitsSeen = try db.cached(
            "SELECT exhausted_at FROM quota_ledger WHERE key_fingerprint = ? AND exhausted_at >= ? AND exhausted_at < ?"
        ).query([.text(key), .text(span.start), .text(span.end)]) { $0.text(0) ?? "" }
        var entries: [String: LedgerEntry] = [:]
        for ((day, dayKey), bound) in zip(zip(days, dayKeys), bounds) {
            let row = rows[dayKey]
            let used = try callsSent(db, key: key, in: day.minutes)
            // "Limit reached" seen within this day by a run in another zone, when its own row has none.
            let exhausted = (row?.exhausted ?? limitsSeen.filter { $0 >= bound.start && $0 < bound.end }.min())
                .flatMap(Timestamp.parse)
            guard row != nil || used > 0 || exhausted != nil else { continue }
            entries[dayKey] = LedgerEntry.row(
                keyFingerprint: key, day: dayKey, used: used, dailyLimit: row?.limit ?? 0, exhaustedAt: exhausted,
                resetObservedAt: row?.resetObserved)
        }
        return entries
    }

    /// Today's ledger entry for planning: `key`'s, or without a key the busiest key's.
    public func ledgerForPlanning(key: String?, day: QuotaDay) throws(StoreError) -> LedgerEntry? {
        if let key { return try ledger(key: key, day: day) }
        let minutes = day.minutes
        let keys = try withConnection { c throws(StoreError) in
            try c.db.prepare(
                "SELECT key_fingerprint FROM quota_ledger WHERE quota_day = ?1 UNION"
                    + " SELECT key_fingerprint FROM quota_calls WHERE minute >= ?2 AND minute < ?3"
            ).query([.text(day.key), .integer(minutes.lowerBound), .integer(minutes.upperBound)]) { $0.text(0) ?? "" }
        }
        // An exhausted key leaves nothing, so it is the busiest whatever its count.
        func weight(_ entry: LedgerEntry) -> (Int, Int) { (entry.exhaustedAt == nil ? 0 : 1, entry.used) }
        var busiest: LedgerEntry?
        for key in keys {
            guard let entry = try ledger(key: key, day: day) else { continue }
            if let b = busiest, weight(b) >= weight(entry) { continue }
            busiest = entry
        }
        return busiest
    }

    /// Renames `legacy` (a key's four-hex-digit name from before ``KeyFingerprint``) to `full` in the
    /// ledger and the runs, adding its counts to any the new name has; `false` when there was nothing.
    ///
    /// A four-digit name is shared by one key in 65,536: whichever key sharing it warms first takes
    /// its rows, which were already one budget for all of them.
    @discardableResult
    public func adoptLegacyFingerprint(_ legacy: String, as full: String) throws(StoreError) -> Bool {
        guard legacy != full else { return false }
        return try withConnection { c throws(StoreError) in
            let any = try c.db.prepare(
                "SELECT 1 FROM quota_ledger WHERE key_fingerprint = ?1 UNION ALL"
                    + " SELECT 1 FROM runs WHERE key_fingerprint = ?1 LIMIT 1"
            ).query([.text(legacy)]) { $0.int(0) }
            guard !any.isEmpty else { return false }
            try c.db.transaction { () throws(StoreError) in
                try c.db.prepare(
                    """
                    INSERT INTO quota_ledger (key_fingerprint, quota_day, used, daily_limit, exhausted_at, reset_observed_at)
                    SELECT ?2, quota_day, used, daily_limit, exhausted_at, reset_observed_at FROM quota_ledger
                    WHERE key_fingerprint = ?1
                    ON CONFLICT DO UPDATE SET used = used + excluded.used,
                        exhausted_at = coalesce(exhausted_at, excluded.exhausted_at),
                        reset_observed_at = coalesce(reset_observed_at, excluded.reset_observed_at)
                    """
                ).run([.text(legacy), .text(full)])
                try c.db.prepare(
                    """
                    INSERT INTO quota_calls (key_fingerprint, minute, calls)
                    SELECT ?2, minute, calls FROM quota_calls WHERE key_fingerprint = ?1
                    ON CONFLICT DO UPDATE SET calls = calls + excluded.calls
                    """
                ).run([.text(legacy), .text(full)])
                for table in ["quota_ledger", "quota_calls"] {
                    try c.db.prepare("DELETE FROM \(table) WHERE key_fingerprint = ?").run([.text(legacy)])
                }
                try c.db.prepare("UPDATE runs SET key_fingerprint = ?2 WHERE key_fingerprint = ?1")
                    .run([.text(legacy), .text(full)])
            }
            return true
        }
    }

    /// Starts a run record and returns its id, first closing every run left unfinished.
    ///
    /// Only the holder of the run lock begins a run, so an unfinished one is a run that was killed
    /// (SIGKILL, power loss): it is closed as `killed`, at `startedAt`, with the calls the ledger
    /// counted for it (its reservations, which may over-count by what was unsent, never under).
    public func beginRun(startedAt: Date, key: String) throws(StoreError) -> Int {
        try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                try c.db.prepare(
                    "UPDATE runs SET finished_at = ?, outcome = 'killed', calls = reserved_calls"
                        + " WHERE finished_at IS NULL"
                ).run([.text(Timestamp.format(startedAt))])
                try c.db.prepare("INSERT INTO runs (started_at, key_fingerprint) VALUES (?, ?)")
                    .run([.text(Timestamp.format(startedAt)), .text(key)])
                return try c.db.prepare("SELECT last_insert_rowid()").query { $0.int(0) ?? 0 }.first ?? 0
            }
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
