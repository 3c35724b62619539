/// Renders a poster run's summary for people.
public enum PosterReport {
    /// The block printed at the end of `posters`, and after a `warm --posters`.
    public static func text(_ s: PosterSummary, store: String) -> String {
        var rows: [(String, Int, String)] = [
            ("due", s.due, "films whose poster was never fetched, changed, or is due a check"),
            ("stored", s.stored, "downloaded, checked, stored as new files"),
            ("already held", s.alreadyHeld, "downloaded; the store had these bytes"),
            ("not modified", s.notModified, "revalidated with a 304; no bytes"),
            ("gone", s.gone, "the image host has none (404, 410); asked again later"),
            ("refused", s.rejected, "not an image, over the size cap, or an internal address"),
            ("failed", s.failed, "tried again later"),
        ]
        if s.due == 0 { rows = [rows[0]] }
        var out = "filmcache posters → \(store)\n" + TextTable.counts(rows, labelWidth: 13) + "\n"
        if s.due > 0 { out += "downloaded: \(StatsReport.size(s.bytes))\n" }
        if let pruned = s.pruned {
            out += "pruned: \(pruned.removed) files no film references (\(StatsReport.size(pruned.removedBytes))),"
            out += " \(pruned.temporaryRemoved) temporary; \(pruned.kept) kept"
            out += pruned.foreign > 0 ? "; \(pruned.foreign) files not named by the store left alone\n" : "\n"
        }
        if s.stopped {
            out +=
                "stopped early: interrupted; transfers in flight finished and were recorded; the rest resumes next run\n"
        } else {
            out += "done\n"
        }
        return String(out.dropLast())
    }
}
