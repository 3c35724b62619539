import Foundation

/// The daily quota ledger in memory.
///
/// A call is counted when it is reserved, before it is sent: a run that dies can only over-count
/// (by what was reserved and unsent), never under-count. A day's use is the calls of every minute
/// within it, so runs naming another quota time zone share the one budget.
extension MemoryBackend {
    package func reserveCalls(
        _ count: Int, key: String, day: QuotaDay, minute: Int?, dailyLimit: Int, usable: Int, runID: Int?
    ) async throws(StoreError) -> Int {
        guard count > 0 else { return 0 }
        let (used, exhaustedAt) = dayUse(key: key, day: day)
        guard exhaustedAt == nil else { return 0 }
        let granted = max(0, min(count, usable - used))
        let rowKey = LedgerKey(key: key, day: day.key)
        var row = ledgerRows[rowKey] ?? Self.emptyRow(key: key, day: day.key, dailyLimit: dailyLimit)
        if granted > 0 {
            row.used += granted
            row.dailyLimit = dailyLimit
            calls[key, default: [:]][day.minute(clamping: minute), default: 0] += granted
            if let runID { runRows[runID]?.reservedCalls += granted }
        }
        ledgerRows[rowKey] = row
        return granted
    }

    package func releaseCalls(_ count: Int, key: String, day: QuotaDay, minute: Int?, runID: Int?)
        async throws(StoreError)
    {
        guard count > 0 else { return }
        let rowKey = LedgerKey(key: key, day: day.key)
        if let used = ledgerRows[rowKey]?.used { ledgerRows[rowKey]?.used = max(0, used - count) }
        let minute = day.minute(clamping: minute)
        if let held = calls[key]?[minute] { calls[key]?[minute] = max(0, held - count) }
        if let runID, let reserved = runRows[runID]?.reservedCalls {
            runRows[runID]?.reservedCalls = max(0, reserved - count)
        }
    }

    /// `key`'s use of `day`: the calls counted in its minutes, and when OMDb said the limit was
    /// reached within it (on the day's own row, or seen within its hours by a run in another zone).
    func dayUse(key: String, day: QuotaDay) -> (used: Int, exhaustedAt: Date?) {
        let minutes = day.minutes
        let used = (calls[key] ?? [:]).reduce(0) { $0 + (minutes.contains($1.key) ? $1.value : 0) }
        if let exhausted = ledgerRows[LedgerKey(key: key, day: day.key)]?.exhaustedAt { return (used, exhausted) }
        let (start, end) = (day.start.storedSecond, day.nextReset.storedSecond)
        let seen = ledgerRows.values.filter { $0.keyFingerprint == key }.compactMap(\.exhaustedAt)
            .filter { $0 >= start && $0 < end }.min()
        return (used, seen)
    }

    package func markExhausted(key: String, day: String, dailyLimit: Int, at instant: Date) async throws(StoreError) {
        let rowKey = LedgerKey(key: key, day: day)
        var row = ledgerRows[rowKey] ?? Self.emptyRow(key: key, day: day, dailyLimit: dailyLimit)
        row.exhaustedAt = row.exhaustedAt ?? instant.storedSecond
        ledgerRows[rowKey] = row
    }

    package func recordResetObserved(key: String, before day: String, at instant: Date) async throws(StoreError) {
        let latest = ledgerRows.values
            .filter { $0.keyFingerprint == key && $0.day < day && $0.exhaustedAt != nil }
            .max { $0.day < $1.day }
        guard let latest, latest.resetObservedAt == nil else { return }
        ledgerRows[LedgerKey(key: key, day: latest.day)]?.resetObservedAt = instant.storedSecond
    }

    package func ledger(key: String, day: QuotaDay) async throws(StoreError) -> LedgerEntry? {
        let row = ledgerRows[LedgerKey(key: key, day: day.key)]
        let (used, exhaustedAt) = dayUse(key: key, day: day)
        guard row != nil || used > 0 || exhaustedAt != nil else { return nil }
        return LedgerEntry.row(
            keyFingerprint: key, day: day.key, used: used, dailyLimit: row?.dailyLimit ?? 0, exhaustedAt: exhaustedAt,
            resetObservedAt: row?.resetObservedAt)
    }

    package func ledgerForPlanning(key: String?, day: QuotaDay) async throws(StoreError) -> LedgerEntry? {
        if let key { return try await ledger(key: key, day: day) }
        let minutes = day.minutes
        var keys = Set(ledgerRows.keys.filter { $0.day == day.key }.map(\.key))
        for (key, byMinute) in calls where byMinute.keys.contains(where: { minutes.contains($0) }) { keys.insert(key) }
        // An exhausted key leaves nothing, so it is the busiest whatever its count.
        func weight(_ entry: LedgerEntry) -> (Int, Int) { (entry.exhaustedAt == nil ? 0 : 1, entry.used) }
        var busiest: LedgerEntry?
        for key in keys.sorted(by: Self.precedes) {
            guard let entry = try await ledger(key: key, day: day) else { continue }
            if let b = busiest, weight(b) >= weight(entry) { continue }
            busiest = entry
        }
        return busiest
    }

    /// Renames `legacy` to `full` in the ledger and the runs, adding its counts to any `full` has.
    package func adoptLegacyFingerprint(_ legacy: String, as full: String) async throws(StoreError) -> Bool {
        guard legacy != full else { return false }
        let legacyRows = ledgerRows.values.filter { $0.keyFingerprint == legacy }
        guard !legacyRows.isEmpty || runRows.values.contains(where: { $0.record.keyFingerprint == legacy }) else {
            return false
        }
        for row in legacyRows {
            let target = LedgerKey(key: full, day: row.day)
            if var held = ledgerRows[target] {
                held.used += row.used
                held.exhaustedAt = held.exhaustedAt ?? row.exhaustedAt
                held.resetObservedAt = held.resetObservedAt ?? row.resetObservedAt
                ledgerRows[target] = held
            } else {
                var moved = row
                moved.keyFingerprint = full
                ledgerRows[target] = moved
            }
            ledgerRows[LedgerKey(key: legacy, day: row.day)] = nil
        }
        for (minute, count) in calls[legacy] ?? [:] { calls[full, default: [:]][minute, default: 0] += count }
        calls[legacy] = nil
        for id in runRows.keys where runRows[id]?.record.keyFingerprint == legacy {
            runRows[id]?.record.keyFingerprint = full
        }
        return true
    }

    /// Every key in the ledger, busiest first: by calls on `today`, then since `since`, then latest use.
    package func ledgerKeys(today: String, since: String) async throws(StoreError) -> [String] {
        var rank: [String: (today: Int, recent: Int, latest: String)] = [:]
        for row in ledgerRows.values {
            var r = rank[row.keyFingerprint] ?? (today: 0, recent: 0, latest: "")
            if row.day == today { r.today += row.used }
            if row.day >= since { r.recent += row.used }
            r.latest = max(r.latest, row.day)
            rank[row.keyFingerprint] = r
        }
        return rank.sorted { a, b in
            if a.value.today != b.value.today { return a.value.today > b.value.today }
            if a.value.recent != b.value.recent { return a.value.recent > b.value.recent }
            if a.value.latest != b.value.latest { return a.value.latest > b.value.latest }
            return Self.precedes(a.key, b.key)
        }.map(\.key)
    }

    package func callsByMinute(key: String) async throws(StoreError) -> [Int: Int] {
        (calls[key] ?? [:]).filter { $0.value > 0 }
    }

    package func observedResets(key: String) async throws(StoreError) -> [Date] {
        ledgerRows.values.filter { $0.keyFingerprint == key }.compactMap(\.resetObservedAt).sorted()
    }

    package func latestDailyLimit(key: String) async throws(StoreError) -> Int? {
        ledgerRows.values.filter { $0.keyFingerprint == key }.max { $0.day < $1.day }?.dailyLimit
    }

    /// A day's row with no call counted yet.
    static func emptyRow(key: String, day: String, dailyLimit: Int) -> LedgerEntry {
        LedgerEntry.row(
            keyFingerprint: key, day: day, used: 0, dailyLimit: dailyLimit, exhaustedAt: nil, resetObservedAt: nil)
    }
}
