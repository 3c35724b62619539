/// Renders what `db copy` did: per table, the rows read, added, updated and kept, and both counts after.
public enum CopyReport {
    /// The block printed at the end of `db copy`.
    public static func text(_ tables: [TableCopy], from: String, to: String) -> String {
        var table = TextTable(Array(repeating: .right, count: 7))
        table.alignments[0] = .left
        table.add(["table", "read", "added", "updated", "kept", "in FROM", "in TO"])
        for t in tables {
            table.add(
                [t.table.rawValue]
                    + [t.read, t.counts.added, t.counts.updated, t.counts.kept, t.sourceCount, t.targetCount]
                    .map(String.init))
        }
        let verdict =
            tables.allSatisfy { $0.mismatch == nil }
            ? "  counts verified: every row of FROM is in TO" : "  counts DO NOT agree (see above)"
        func clamped(_ table: CacheTable) -> Int { tables.filter { $0.table == table }.reduce(0) { $0 + $1.clamped } }
        let (films, answers) = (clamped(.films), clamped(.answers))
        var note =
            films == 0 ? "" : "\n  \(films) films fetched in the future by FROM's clock were copied as fetched now"
        if answers > 0 {
            note += "\n  \(answers) answers given in the future by FROM's clock were copied as given now"
        }
        return "filmcache db copy \(from) → \(to)\n" + table.text + "\n" + verdict + note
    }

    /// The same as JSON: `from`, `to`, `verified`, and `tables` with each table's counts.
    public static func json(_ tables: [TableCopy], from: String, to: String) -> String {
        ReportJSON.encode(
            Document(
                from: from, to: to, verified: tables.allSatisfy { $0.mismatch == nil },
                tables: tables.map {
                    Table(
                        table: $0.table.rawValue, read: $0.read, added: $0.counts.added, updated: $0.counts.updated,
                        kept: $0.counts.kept, fromCount: $0.sourceCount, toCount: $0.targetCount,
                        clampedToNow: $0.clamped, mismatch: $0.mismatch)
                }))
    }

    private struct Document: Encodable {
        var from, to: String
        var verified: Bool
        var tables: [Table]
    }

    private struct Table: Encodable {
        var table: String
        var read, added, updated, kept, fromCount, toCount, clampedToNow: Int
        var mismatch: String?
    }
}
