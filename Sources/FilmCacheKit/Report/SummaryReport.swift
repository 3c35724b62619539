/// Renders a warm's summary for people.
public enum SummaryReport {
    /// The block printed at the end of `warm`; TMDb's lines follow OMDb's when the warm read TMDb.
    public static func text(_ s: WarmSummary, keyFingerprint: String, database: String) -> String {
        var rows: [(String, Int, String)] = [
            ("considered", s.considered, "distinct IDs in the worklists"),
            ("fresh, skipped", s.fresh, "cached and younger than the TTL"),
            ("fetched", s.fetched, "stored in films"),
            ("not found", s.notFound, "OMDb does not know them; recorded"),
            ("failed", s.failed, "recorded with a retry time"),
        ]
        if s.titlesResolved + s.titlesNotFound + s.titlesKnown > 0 {
            rows.append(
                (
                    "titles resolved", s.titlesResolved,
                    "asked by title (t=), of those fetched; \(s.titlesNotFound) not found,"
                        + " \(s.titlesKnown) answered by the title index"
                ))
        }
        if s.awaitingRecheck > 0 {
            rows.append(("awaiting recheck", s.awaitingRecheck, "negative answers not yet due"))
        }
        if s.deferred > 0 { rows.append(("deferred", s.deferred, "left for the next run")) }
        rows.append(("OMDb calls", s.calls, "counted in the ledger for key \(KeyFingerprint.short(keyFingerprint))"))
        var out = "filmcache warm → \(database)\n" + TextTable.counts(rows, labelWidth: 17) + "\n"
        if s.skippedLines > 0 { out += "  \(s.skippedLines) worklist lines skipped (see warnings above)\n" }
        if s.normalizationWarnings > 0 {
            out += "  \(s.normalizationWarnings) fields could not be read (see warnings)\n"
        }
        if let tmdb = s.tmdb { out += text(tmdb) + "\n" }
        switch s.stopReason {
        case .budgetSpent?: out += "stopped early: today's budget is spent; the rest resumes next run\n"
        case .limitReached?:
            out += "stopped early: OMDb says the daily limit is reached; the rest resumes next quota day\n"
        case .tooManyFailures?: out += "stopped early: too many failures in a row; the rest resumes next run\n"
        case .interrupted?:
            out += "stopped early: interrupted; calls in flight finished and were stored; the rest resumes next run\n"
        case .timeLimit?:
            out += "stopped early: the time limit is up; calls in flight finished and were stored;"
            out += " the rest resumes next run\n"
        case .notOMDb?:
            out += "stopped: the base URL does not answer like OMDb (\(s.stopDetail ?? "?"));"
            out += " the rest resumes next run\n"
        case .unreachable?:
            out += "stopped: OMDb unreachable (\(s.stopDetail ?? "?")); calls that never left were given back\n"
        case nil where s.nothingSucceeded: out += "failed: no ID got an answer; the failed ones are retried next run\n"
        case nil: out += "done\n"
        }
        return String(out.dropLast())
    }
}
