import Foundation

/// Renders tonight's plan for people (`filmcache plan`) and for programs (`plan --json`).
public enum PlanReport {
    /// The table `filmcache plan` prints.
    public static func text(_ night: NightPlan, keyFingerprint: String?, database: String) -> String {
        let p = night.plan
        let key = keyFingerprint.map { "key \(KeyFingerprint.short($0))" } ?? "busiest key today"
        var rows: [(String, Int, String)] = [
            ("considered", p.considered, "distinct IDs in the worklists"),
            ("fresh", p.fresh, "cached and within their TTL; no call"),
            ("due", p.due, "missing \(p.missing), stale \(p.stale), older normalizer \(p.upgrades); in that order"),
            ("to fetch", p.toFetch.count, "tonight, within the \(night.callsLeft) calls left today (\(key))"),
            ("deferred", p.deferred.count, deferredNote(night)),
            ("not found", p.notFoundAwaitingRecheck, "OMDb did not know them; rechecked after their TTL"),
            ("failed", p.failedAwaitingRetry, "waiting for their retry time"),
        ]
        if night.skippedLines > 0 {
            rows.append(("skipped lines", night.skippedLines, "worklist lines that named no ID (see warnings)"))
        }
        return "filmcache plan → \(database) (quota day \(night.quotaDay); dry run, no OMDb call)\n"
            + TextTable.counts(rows, labelWidth: 14)
    }

    private static func deferredNote(_ night: NightPlan) -> String {
        switch night.daysToClear {
        case nil: "nothing left for later days"
        case Int.max?: "no calls usable per day: the backlog never clears"
        case let days?:
            "beyond today's budget; clears in \(days) more quota day\(days == 1 ? "" : "s")"
                + " at \(night.callsPerDay) calls a day"
        }
    }

    /// The same facts as JSON (keys sorted); with `ids`, the ordered IDs to fetch and deferred.
    public static func json(_ night: NightPlan, keyFingerprint: String?, ids: Bool) -> String {
        let p = night.plan
        let document = Document(
            quotaDay: night.quotaDay, keyFingerprint: keyFingerprint.map(KeyFingerprint.short),
            considered: p.considered, fresh: p.fresh,
            toFetch: p.toFetch.count, missing: p.missing, stale: p.stale, upgrades: p.upgrades,
            deferred: p.deferred.count, daysToClear: night.daysToClear == Int.max ? nil : night.daysToClear,
            notFoundAwaitingRecheck: p.notFoundAwaitingRecheck, failedAwaitingRetry: p.failedAwaitingRetry,
            callsPerDay: night.callsPerDay, callsUsed: night.callsUsed, callsLeft: night.callsLeft,
            exhausted: night.exhausted, skippedLines: night.skippedLines,
            toFetchIDs: ids ? p.toFetch : nil, deferredIDs: ids ? p.deferred : nil)
        return ReportJSON.encode(document)
    }

    private struct Document: Encodable {
        var quotaDay: String
        var keyFingerprint: String?
        var considered, fresh, toFetch, missing, stale, upgrades, deferred: Int
        var daysToClear: Int?
        var notFoundAwaitingRecheck, failedAwaitingRetry: Int
        var callsPerDay, callsUsed, callsLeft: Int
        var exhausted: Bool
        var skippedLines: Int
        var toFetchIDs: [String]?
        var deferredIDs: [String]?
    }
}
