/// TMDb's part of a warm's summary: text lines under OMDb's, and the `"tmdb"` object of the JSON form.
extension SummaryReport {
    /// TMDb's lines: a heading, the counts, the changes feed's status and why TMDb's part stopped, if it did.
    static func text(_ t: TMDbWarmSummary) -> String {
        var rows: [(String, Int, String)] = [
            ("considered", t.considered, "distinct IDs in the worklists"),
            ("fresh, skipped", t.fresh, "stored and within their TTL"),
            ("resolved", t.resolved, "asked TMDb's /find; \(t.notOnTMDb) not on TMDb (recorded)"),
            (
                "fetched", t.fetched,
                "stored" + (t.changedRefreshed > 0 ? "; \(t.changedRefreshed) named by the changes feed" : "")
            ),
            ("not found", t.notFound, "TMDb answered 404"),
            ("failed", t.failed, "failed after their retries; tried again next run"),
        ]
        if t.deferred > 0 { rows.append(("deferred", t.deferred, "left for the next run")) }
        rows.append(("TMDb calls", t.totalCalls, callsNote(t.calls)))
        if t.rateLimited > 0 {
            rows.append(
                ("rate limited", t.rateLimited, "429 answers; each paused every TMDb request for its Retry-After"))
        }
        var out = "TMDb\n" + TextTable.counts(rows, labelWidth: 17)
        if let feed = t.feed { out += "\n  changes feed: " + feedNote(feed, marked: t.feedMarked) }
        if let detail = t.stopDetail {
            out += "\n  TMDb stopped early: \(LogText.escaped(detail)); the rest resumes next run"
        }
        return out
    }

    /// The summary of a warm of TMDb alone.
    public static func text(tmdb s: TMDbWarmSummary, database: String) -> String {
        "Warm of \(database)\n" + text(s)
    }

    /// Calls by kind, `details 40, find 12`, in name order; `none` without calls.
    static func callsNote(_ calls: [String: Int]) -> String {
        let kinds = calls.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        guard !kinds.isEmpty else { return "none" }
        return kinds.map { "\(LogText.escaped($0.key)) \($0.value)" }.joined(separator: ", ")
    }

    /// What the feed status means for the run.
    static func feedNote(_ feed: String, marked: Int) -> String {
        switch feed {
        case "read":
            "read since the last run; \(marked) stored entr\(marked == 1 ? "y" : "ies") named, refreshed when due"
        case "first-run": "not read: no run before this one: TTLs decide"
        case "too-old":
            "not read: the last run is older than the \(TMDbChangesFeed.reachDays) days the changes feed is read back: TTLs decide"
        case "recent": "read within the hour: not read again (the next read starts from that day)"
        case "failed": "could not be read: TTLs decide; the next run reads it again"
        default: LogText.escaped(feed)
        }
    }

    /// A warm's summary as JSON (keys sorted); `"tmdb"` is there only when the warm read TMDb.
    public static func json(_ s: WarmSummary) -> String {
        ReportJSON.encode(
            Document(
                considered: s.considered, fresh: s.fresh, fetched: s.fetched, notFound: s.notFound, failed: s.failed,
                deferred: s.deferred, missing: s.missing, stale: s.stale, calls: s.calls,
                callsByOutcome: Dictionary(uniqueKeysWithValues: s.callsByOutcome.map { ($0.key.rawValue, $0.value) }),
                stopReason: s.stopReason?.rawValue, stopDetail: s.stopDetail, tmdb: s.tmdb.map(TMDbDocument.init)))
    }

    private struct Document: Encodable {
        var considered, fresh, fetched, notFound, failed, deferred, missing, stale, calls: Int
        var callsByOutcome: [String: Int]
        @Nullable var stopReason: String?
        @Nullable var stopDetail: String?
        var tmdb: TMDbDocument?
    }

    /// TMDb's part of a warm, as JSON.
    private struct TMDbDocument: Encodable {
        var considered, fresh, resolved, notOnTMDb, fetched, changedRefreshed, notFound, failed, deferred: Int
        var calls: [String: Int]
        var totalCalls, rateLimited, feedMarked: Int
        @Nullable var feed: String?
        @Nullable var stopDetail: String?

        init(_ t: TMDbWarmSummary) {
            considered = t.considered
            fresh = t.fresh
            resolved = t.resolved
            notOnTMDb = t.notOnTMDb
            fetched = t.fetched
            changedRefreshed = t.changedRefreshed
            notFound = t.notFound
            failed = t.failed
            deferred = t.deferred
            calls = t.calls
            totalCalls = t.totalCalls
            rateLimited = t.rateLimited
            feedMarked = t.feedMarked
            feed = t.feed
            stopDetail = t.stopDetail
        }
    }
}
