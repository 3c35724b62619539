import Foundation

/// Renders tonight's plan for people (`filmcache plan`) and for programs (`plan --json`).
public enum PlanReport {
    /// The table `filmcache plan` prints; with `tmdb`, TMDb's section after it.
    public static func text(
        _ night: NightPlan, keyFingerprint: String?, database: String, tmdb: TMDbNightPlan? = nil
    ) -> String {
        let p = night.plan
        let key = keyFingerprint.map { "key \(KeyFingerprint.short($0))" } ?? "busiest key today"
        var rows: [(String, Int, String)] = [
            (
                "considered", p.considered,
                "distinct IDs in the worklists" + (p.titles.known > 0 ? ", titles the index knows included" : "")
            ),
            ("fresh", p.fresh, "cached and within their TTL; no call"),
            (
                "due", p.due,
                "missing \(p.missing), stale \(p.stale), older normalizer \(p.upgrades); in that order"
                    + (p.titles.toResolve > 0 ? "; and \(p.titles.toResolve) titles to resolve" : "")
            ),
            ("to fetch", p.scheduled.count, "tonight, within the \(night.callsLeft) calls left today (\(key))"),
            ("deferred", p.postponed.count, deferredNote(night)),
            ("not found", p.notFoundAwaitingRecheck, "OMDb did not know them; rechecked after their TTL"),
            ("failed", p.failedAwaitingRetry, "waiting for their retry time"),
        ]
        let t = p.titles
        if t.distinct > 0 {
            let tonight = p.titlesToResolve.count
            rows.insert(
                (
                    "titles", t.distinct,
                    "named by title: \(t.known) known to the title index, \(t.notFound) not found before,"
                        + " \(t.toResolve) to resolve, \(tonight) of them tonight (1 call each)"
                ), at: 1)
        }
        if !p.requested.isEmpty {
            let most = p.mostRequested(limit: mostRequestedShown).map { "\($0.imdbID) (\($0.requests))" }
            let afterDeferred = (rows.firstIndex { $0.0 == "deferred" } ?? rows.count - 1) + 1
            rows.insert(
                (
                    "asked by apps", p.requested.count,
                    "due IDs apps requested, first within their kind; most: " + most.joined(separator: ", ")
                        + (p.requested.count > most.count ? ", …" : "")
                ), at: afterDeferred)
        }
        if night.skippedLines > 0 {
            rows.append(("skipped lines", night.skippedLines, "worklist lines that named no ID (see warnings)"))
        }
        return "filmcache plan → \(database) (quota day \(night.quotaDay); dry run, no OMDb call)\n"
            + worklistsLine(night.files) + TextTable.counts(rows, labelWidth: 14)
            + (tmdb.map { "\n\n" + TMDbPlanReport.text($0) } ?? "")
    }

    /// `filmcache plan --source tmdb` alone: the worklists, then TMDb's section.
    public static func text(_ tmdb: TMDbNightPlan, files: [WorklistFile], database: String) -> String {
        "filmcache plan → \(database)\n" + worklistsLine(files) + TMDbPlanReport.text(tmdb)
    }

    /// `worklists: a.txt (IDs: 3 IDs); …` and a newline, or nothing when no file named anything.
    private static func worklistsLine(_ files: [WorklistFile]) -> String {
        let lists = files.map { file in
            let parts = [file.ids > 0 ? "\(file.ids) IDs" : nil, file.titles > 0 ? "\(file.titles) titles" : nil]
            return "\(file.name) (\(file.kind): \(parts.compactMap { $0 }.joined(separator: ", ")))"
        }
        return lists.isEmpty ? "" : "worklists: " + lists.joined(separator: "; ") + "\n"
    }

    /// How many of the most requested due IDs the text names, and the JSON lists without `--ids`.
    static let mostRequestedShown = 5

    private static func deferredNote(_ night: NightPlan) -> String {
        switch night.daysToClear {
        case nil: "nothing left for later days"
        case Int.max?: "no calls usable per day: the backlog never clears"
        case let days?:
            "beyond today's budget; clears in \(days) more quota day\(days == 1 ? "" : "s")"
                + " at \(night.callsPerDay) calls a day"
        }
    }

    /// The same facts as JSON (keys sorted); with `ids`, the ordered IDs to fetch and deferred, and
    /// every due ID apps asked for (else the most requested few). With `tmdb`, TMDb's plan as `"tmdb"`.
    public static func json(_ night: NightPlan, keyFingerprint: String?, ids: Bool, tmdb: TMDbNightPlan? = nil)
        -> String
    {
        let p = night.plan
        let document = Document(
            quotaDay: night.quotaDay, keyFingerprint: keyFingerprint.map(KeyFingerprint.short),
            considered: p.considered, fresh: p.fresh,
            toFetch: p.scheduled.count, missing: p.missing, stale: p.stale, upgrades: p.upgrades,
            deferred: p.postponed.count, daysToClear: night.daysToClear == Int.max ? nil : night.daysToClear,
            notFoundAwaitingRecheck: p.notFoundAwaitingRecheck, failedAwaitingRetry: p.failedAwaitingRetry,
            callsPerDay: night.callsPerDay, callsUsed: night.callsUsed, callsLeft: night.callsLeft,
            exhausted: night.exhausted, skippedLines: night.skippedLines,
            toFetchIDs: ids ? p.toFetch : nil, deferredIDs: ids ? p.deferred : nil,
            titles: p.titles.distinct == 0
                ? nil
                : Titles(
                    distinct: p.titles.distinct, known: p.titles.known, notFound: p.titles.notFound,
                    toResolve: p.titles.toResolve, toResolveTonight: p.titlesToResolve.count,
                    toResolveTitles: ids ? p.titlesToResolve.map(Titles.Entry.init) : nil),
            worklists: night.files.map { Worklist(file: $0.name, kind: $0.kind, ids: $0.ids, titles: $0.titles) },
            askedByApps: p.requested.isEmpty
                ? nil
                : AskedByApps(
                    due: p.requested.count,
                    mostRequested: p.mostRequested(limit: ids ? p.requested.count : mostRequestedShown).map {
                        AskedByApps.Entry(imdbID: $0.imdbID, requests: $0.requests)
                    }),
            tmdb: tmdb.map { TMDbPlanReport.document($0, ids: ids) })
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
        var titles: Titles?
        var worklists: [Worklist]
        var askedByApps: AskedByApps?
        /// Present only when TMDb is planned (`--source tmdb`).
        var tmdb: TMDbPlanReport.Document?
    }

    /// Due IDs apps asked for (`filmcache serve`'s demand): how many, and the most requested.
    private struct AskedByApps: Encodable {
        var due: Int
        var mostRequested: [Entry]

        /// One due ID and how often apps asked for it.
        struct Entry: Encodable {
            var imdbID: String
            var requests: Int
        }
    }

    /// The worklists' titles by what the title index says of them.
    private struct Titles: Encodable {
        var distinct, known, notFound, toResolve, toResolveTonight: Int
        var toResolveTitles: [Entry]?

        /// A title to resolve tonight and where the worklists first name it.
        struct Entry: Encodable {
            var title: String
            var year: Int?
            var type: String?
            var at: String

            init(_ entry: TitleEntry) {
                title = entry.query.title
                year = entry.query.year
                type = entry.query.type
                at = entry.place
            }
        }
    }

    /// One worklist file: what kind of list it is and what it named.
    private struct Worklist: Encodable {
        var file, kind: String
        var ids, titles: Int
    }
}
