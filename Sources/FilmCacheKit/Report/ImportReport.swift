/// Renders what an import did, for people.
public enum ImportReport {
    /// The block printed at the end of `import`: lines read, films added, updated and kept, lines skipped.
    public static func text(_ tally: ImportTally, files: Int, database: String) -> String {
        let rows: [(String, Int, String)] = [
            ("lines read", tally.read, "JSON lines and CSV records in \(files) file\(files == 1 ? "" : "s")"),
            ("added", tally.counts.added, "films the cache did not hold"),
            ("updated", tally.counts.updated, "newer than the cached film, which they replaced"),
            ("kept", tally.counts.kept, "the cache already held them as new or newer"),
            ("bad, skipped", tally.bad, "lines that are not a film (warnings above name file:line)"),
        ]
        return "filmcache import → \(database)\n" + TextTable.counts(rows, labelWidth: 14)
    }
}
