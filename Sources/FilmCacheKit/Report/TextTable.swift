/// Plain-text tables for the reports: cells padded to their column's widest, numbers right-aligned.
struct TextTable {
    /// How a column's cells line up.
    enum Alignment {
        /// Text starts at the column's left edge (labels, notes).
        case left
        /// Text ends at the column's right edge (numbers).
        case right
    }

    /// One alignment per column.
    var alignments: [Alignment]
    /// The rows, header included if any; a short row leaves its last columns empty.
    var rows: [[String]] = []
    /// What starts every line.
    var indent = "  "
    /// What stands between two columns.
    var gap = "  "

    /// A table with these column alignments and no rows yet.
    init(_ alignments: [Alignment], rows: [[String]] = []) {
        self.alignments = alignments
        self.rows = rows
    }

    /// Appends one row.
    mutating func add(_ cells: [String]) {
        rows.append(cells)
    }

    /// The table's lines, without trailing blanks.
    var lines: [String] {
        var widths = Array(repeating: 0, count: alignments.count)
        for row in rows {
            for (column, cell) in row.prefix(alignments.count).enumerated() {
                widths[column] = max(widths[column], cell.count)
            }
        }
        return rows.map { row in
            var line = indent
            for (column, alignment) in alignments.enumerated() {
                let cell = column < row.count ? row[column] : ""
                if column > 0 { line += gap }
                line += Self.pad(cell, to: widths[column], alignment)
            }
            // Trailing spaces dropped as bytes: `removeLast` finds each character's bounds anew.
            let spaces = line.utf8.reversed().prefix { $0 == UInt8(ascii: " ") }.count
            return spaces == 0 ? line : String(decoding: line.utf8.dropLast(spaces), as: UTF8.self)
        }
    }

    /// The table as one string, lines joined by newlines.
    var text: String { lines.joined(separator: "\n") }

    /// `text` padded with spaces to `width` characters on the side `alignment` leaves open.
    static func pad(_ text: String, to width: Int, _ alignment: Alignment) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return alignment == .left ? text + fill : fill + text
    }

    /// The label-number-note rows the summaries print: labels padded to `labelWidth`, numbers right-aligned.
    static func counts(_ rows: [(String, Int, String)], labelWidth: Int) -> String {
        let width = rows.map { String($0.1).count }.max() ?? 1
        return rows.map { label, value, note in
            "  " + pad(label, to: labelWidth, .left) + pad(String(value), to: width, .right) + "  " + note
        }.joined(separator: "\n")
    }

    /// A number for people: whole numbers bare, others to one decimal (`7`, `7.5`, `10` for 9.998).
    static func decimal(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
