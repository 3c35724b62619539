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
                out += value.description.utf8
            } else if let bytes = row.textBytes(column) {
                // Well-formed text is copied; other bytes are written as the String reading them repairs them.
                if UTF8Check.isValid(bytes) {
                    appendField(utf8: bytes, to: &out)
                } else {
                    appendField(String(decoding: bytes, as: UTF8.self), to: &out)
                }
            }
        }
        out += "\r\n".utf8
    }
}
