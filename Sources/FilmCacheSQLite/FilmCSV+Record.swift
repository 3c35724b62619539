import FilmCacheKit

/// Export's CSV records, written straight from the rows SQLite returns.
extension FilmCSV {
    /// Appends the record of `row` (selected with `FilmRow.columns`) to `out`.
    static func appendRecord(_ row: SQLiteStatement, to out: inout [UInt8]) {
        for index in FilmRow.columns.indices {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            let column = Int32(index)
            // Swift's shortest form of a number reads back as the same number; SQLite's own text has 15 digits.
            if row.isReal(column), let value = row.double(column) {
                out += "\(value)".utf8
            } else if let text = row.text(column) {
                appendField(text, to: &out)
            }
        }
        out += "\r\n".utf8
    }
}
