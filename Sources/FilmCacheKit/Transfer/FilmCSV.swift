import Foundation

/// The CSV form of the cache: one header row of `films`' column names, then one record a film
/// with each column as stored (RFC 4180).
///
/// List columns are their JSON text, `raw_json` is OMDb's body, and NULL is an empty field, so
/// the form is lossless and an import rebuilds the same films. A field holding a comma, a quote,
/// a CR or an LF is quoted, its quotes doubled; records end with CRLF.
package enum FilmCSV {
    /// The header record, CRLF included.
    package static var header: [UInt8] {
        Array((FilmRow.columns.joined(separator: ",") + "\r\n").utf8)
    }

    /// Appends `text` as one field, quoted when it holds a comma, a quote, a CR or an LF.
    package static func appendField(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendField(utf8: $0, to: &out) }
    }

    /// Appends the UTF-8 `bytes` as one field, as ``appendField(_:to:)`` writes the same text.
    package static func appendField(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let quote = UInt8(ascii: "\"")
        guard bytes.contains(where: { $0 == UInt8(ascii: ",") || $0 == quote || $0 == 0x0A || $0 == 0x0D }) else {
            out.append(contentsOf: bytes)
            return
        }
        out.append(quote)
        var run = 0
        for (index, byte) in bytes.enumerated() where byte == quote {
            // The run up to this quote and the quote itself, then the quote again.
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...index]))
            run = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        out.append(quote)
    }

    /// Where each of `films`' columns stands in a CSV file, read from its header.
    struct Layout {
        /// For each of `FilmRow.columns`, the index of its field, `nil` when the file has none.
        var fields: [Int?]
        /// How many fields the header names.
        var count: Int
        /// Header names that are not columns of `films`; their fields are ignored.
        var unknown: [String]

        /// Whether `imdb_id` is the first field, as filmcache writes it: a record then starts with its ID.
        var startsWithIMDbID: Bool { fields[FilmRow.columns.firstIndex(of: "imdb_id") ?? 0] == 0 }

        /// The columns a record cannot do without.
        static let required = ["imdb_id", "raw_json", "fetched_at", "data_version"]

        /// The indexes in `FilmRow.columns` of the ``required`` columns, with their names.
        static let requiredColumns: [(index: Int32, name: String)] = FilmRow.columns.enumerated().compactMap {
            required.contains($0.element) ? (Int32($0.offset), $0.element) : nil
        }

        /// Reads the header; one that lacks a required column is a fault naming what it lacks.
        init(header: [String]) throws(FilmLine.Fault) {
            let names = header.map { $0.trimmingCharacters(in: .whitespaces) }
            fields = FilmRow.columns.map { names.firstIndex(of: $0) }
            count = names.count
            unknown = names.filter { !FilmRow.columns.contains($0) }
            let missing = Self.required.filter { !names.contains($0) }
            guard missing.isEmpty else {
                throw FilmLine.Fault(
                    reason: "not a filmcache CSV export: the header has no \(missing.joined(separator: ", "))"
                        + " (nor a JSON object first)")
            }
        }
    }

    /// The film in one CSV record read with `layout`.
    static func film(_ fields: [String], layout: Layout) throws(FilmLine.Fault) -> IMDBFilm {
        guard fields.count == layout.count else {
            throw FilmLine.Fault(reason: "\(fields.count) fields where the header names \(layout.count)")
        }
        let record = Record(fields: fields, layout: layout)
        for (column, name) in Layout.requiredColumns where record.field(column) == nil {
            throw FilmLine.Fault(reason: "no \(name)")
        }
        let film = try FilmRow.film(from: record)
        guard PlainTextWorklist.isIMDbID(film.imdbID) else {
            throw FilmLine.Fault(reason: "imdb_id \(FilmLine.quoted(film.imdbID)) is not an IMDb ID")
        }
        return film
    }

    /// One record's fields, read as `films` columns; a value that does not read is a fault naming its column.
    private struct Record: FilmRowValues {
        typealias Failure = FilmLine.Fault
        let fields: [String]
        let layout: Layout

        func text(_ index: Int32) throws(FilmLine.Fault) -> String? {
            field(index)
        }

        /// The field of column `index`; `nil` when the file has none or it is empty.
        func field(_ index: Int32) -> String? {
            guard let field = layout.fields[Int(index)], !fields[field].isEmpty else { return nil }
            return fields[field]
        }

        func int(_ index: Int32) throws(FilmLine.Fault) -> Int? {
            try value(index, "an integer") { Int($0) }
        }

        func double(_ index: Int32) throws(FilmLine.Fault) -> Double? {
            try value(index, "a number") { Double($0).flatMap { $0.isFinite ? $0 : nil } }
        }

        func date(_ index: Int32) throws(FilmLine.Fault) -> CalendarDate? {
            try value(index, "a date like 2001-01-12") { CalendarDate(iso: $0) }
        }

        func instant(_ index: Int32) throws(FilmLine.Fault) -> Date? {
            try value(index, "an instant like 2026-11-21T02:54:22Z") { Timestamp.parse($0) }
        }

        func list<T: Decodable>(_ index: Int32, _ type: T.Type, _ decoder: JSONDecoder) throws(FilmLine.Fault) -> [T] {
            try value(index, "a JSON list of its kind") { JSONText.decodeList($0, type, decoder) } ?? []
        }

        /// The field of column `index` read by `read`; absent when empty, a fault when it does not read.
        private func value<T>(_ index: Int32, _ kind: String, _ read: (String) -> T?) throws(FilmLine.Fault) -> T? {
            guard let text = field(index) else { return nil }
            guard let value = read(text) else {
                throw FilmLine.Fault(
                    reason: "\(FilmRow.columns[Int(index)]): \(FilmLine.quoted(text)) is not \(kind)")
            }
            return value
        }
    }
}
