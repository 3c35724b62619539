/// The summary of a warm of TMDb alone.
extension SummaryReport {
    /// What TMDb's part of a warm did, as the summary prints it.
    public static func text(tmdb s: TMDbWarmSummary, database: String) -> String {
        var lines = ["TMDb warm of \(database)"]
        lines.append("  considered      \(s.considered)")
        lines.append("  fresh           \(s.fresh)")
        lines.append("  resolved        \(s.resolved) (not on TMDb: \(s.notOnTMDb))")
        lines.append("  fetched         \(s.fetched) (changed upstream: \(s.changedRefreshed))")
        lines.append("  not found       \(s.notFound)")
        lines.append("  failed          \(s.failed)")
        lines.append("  deferred        \(s.deferred)")
        let calls = s.calls.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        lines.append("  TMDb calls      \(s.totalCalls)\(calls.isEmpty ? "" : " (\(calls))")")
        if s.rateLimited > 0 { lines.append("  429 pauses      \(s.rateLimited)") }
        if let feed = s.feed { lines.append("  changes feed    \(feed) (entries marked: \(s.feedMarked))") }
        if let stop = s.stopDetail { lines.append("  stopped         \(stop)") }
        return lines.joined(separator: "\n")
    }
}
