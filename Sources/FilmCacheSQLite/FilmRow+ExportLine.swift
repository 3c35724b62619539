import CSQLite
import FilmCacheKit
import Foundation

extension FilmRow {
    /// Appends the export line of `row` (selected with `columns`) straight from its column values:
    /// the bytes `film(from: row).appendExportLine(to:)` writes, without building the film.
    ///
    /// The copy is taken only when every value is in the one form filmcache writes (list columns as
    /// ``JSONText`` writes them, dates and instants in their fixed forms, well-formed UTF-8), where
    /// reading a value and writing it again gives back the same bytes; any other row is read as a
    /// film and written from it, so both ways give the same line.
    static func appendExportLine(_ row: SQLiteStatement, to out: inout [UInt8]) {
        let mark = out.count
        if !appendCopiedLine(row, to: &out) {
            out.removeSubrange(mark...)
            film(from: row).appendExportLine(to: &out)
        }
    }

    /// The copy of ``appendExportLine(_:to:)``; `false` (with `out` partly written) when a value is not
    /// in its written form.
    static func appendCopiedLine(_ row: SQLiteStatement, to out: inout [UInt8]) -> Bool {
        func key(_ name: StaticString) {
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        }
        func null() { out.append(contentsOf: "null".utf8) }
        func text(_ index: Int32, orEmpty: Bool = false) -> Bool {
            guard let bytes = row.textBytes(index) else {
                if orEmpty { out.append(contentsOf: #""""#.utf8) } else { null() }
                return true
            }
            guard UTF8Check.isValid(bytes) else { return false }
            JSONString.append(utf8: bytes, to: &out)
            return true
        }
        func int(_ index: Int32) {
            if let value = row.int(index) { appendInt(value, to: &out) } else { null() }
        }
        func date(_ index: Int32) -> Bool {
            guard let bytes = row.textBytes(index) else {
                null()
                return true
            }
            guard Timestamp.isDayForm(bytes) else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        func list(_ index: Int32, _ shape: JSONText.ListShape) -> Bool {
            guard let bytes = row.textBytes(index) else {
                out.append(contentsOf: "[]".utf8)
                return true
            }
            guard JSONText.isWrittenForm(bytes, shape) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        key(#"{"imdbID":"#)
        guard text(0, orEmpty: true) else { return false }
        key(#","title":"#)
        guard text(1) else { return false }
        key(#","type":"#)
        if let bytes = row.textBytes(2), !isStableType(bytes) { return false }
        guard text(2) else { return false }
        key(#","yearStart":"#)
        int(3)
        key(#","yearEnd":"#)
        int(4)
        key(#","rated":"#)
        guard text(5) else { return false }
        key(#","released":"#)
        guard date(6) else { return false }
        key(#","runtimeMinutes":"#)
        int(7)
        key(#","genres":"#)
        guard list(8, .strings) else { return false }
        key(#","directors":"#)
        guard list(9, .strings) else { return false }
        key(#","writers":"#)
        guard list(10, .credits) else { return false }
        key(#","actors":"#)
        guard list(11, .strings) else { return false }
        key(#","languages":"#)
        guard list(12, .strings) else { return false }
        key(#","countries":"#)
        guard list(13, .strings) else { return false }
        key(#","plot":"#)
        guard text(14) else { return false }
        key(#","awards":"#)
        guard text(15) else { return false }
        key(#","posterURL":"#)
        guard text(16) else { return false }
        key(#","imdbRating":"#)
        if let rating = row.double(17) { out.append(contentsOf: rating.description.utf8) } else { null() }
        key(#","imdbVotes":"#)
        int(18)
        key(#","metascore":"#)
        int(19)
        key(#","ratings":"#)
        guard list(20, .ratings) else { return false }
        key(#","boxOfficeUSD":"#)
        int(21)
        key(#","totalSeasons":"#)
        int(22)
        key(#","season":"#)
        int(23)
        key(#","episode":"#)
        int(24)
        key(#","seriesID":"#)
        guard text(25) else { return false }
        key(#","dvd":"#)
        guard date(26) else { return false }
        key(#","production":"#)
        guard text(27) else { return false }
        key(#","website":"#)
        guard text(28) else { return false }
        key(#","lastFetched":"#)
        guard let fetched = row.textBytes(30), Timestamp.isWrittenForm(fetched) else { return false }
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: fetched)
        out.append(UInt8(ascii: "\""))
        key(#","dataVersion":"#)
        appendInt(row.int(31) ?? 0, to: &out)
        key(#","rawJSON":"#)
        guard text(29, orEmpty: true) else { return false }
        out.append(contentsOf: "}\n".utf8)
        return true
    }

    /// Appends `value` in decimal, as `String(value)` writes it.
    private static func appendInt(_ value: Int, to out: inout [UInt8]) {
        guard value < 0 || value >= 10 else { return out.append(UInt8(truncatingIfNeeded: value) + 0x30) }
        out.append(contentsOf: String(value).utf8)
    }

    /// Whether a `type` value reads back as itself: OMDb's known words only in lower case.
    private static func isStableType(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Text with no capital letter is its own lower case; only ASCII lower-cases to these words.
        guard (4...7).contains(bytes.count), bytes.contains(where: { (0x41...0x5A).contains($0) }),
            bytes.allSatisfy({ $0 < 0x80 })
        else { return true }
        let lower = String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        guard ["movie", "series", "episode", "game"].contains(lower) else { return true }
        return bytes.elementsEqual(lower.utf8)
    }
}
