import Foundation

/// Reads CSV worklists: IMDb's own list and watchlist exports, or any CSV whose header names an ID column.
///
/// IMDb's export puts the title ID in the `Const` column; other tools call it `imdbID`, `imdb_id`
/// or `tconst`. Every record after the header gives one ID from that column; a record whose value
/// is not an IMDb title ID (a person's `nm…`, an empty field, a short record) is skipped with a
/// warning at the line the record starts on.
public enum CSVWorklist {
    /// Header names that hold the ID, in order of preference; matched ignoring case and surrounding spaces.
    public static let idColumnNames = ["Const", "imdbID", "imdb_id", "tconst"]

    /// Parses `data` as CSV with a header row; `file` names it in warnings and errors.
    ///
    /// Throws `noIDColumn` when the header has no ID column and `malformed` for a quote never closed.
    public static func parse(_ data: Data, file: String) throws(WorklistError) -> ParsedWorklist {
        var reader = CSVReader(Array(data))
        var parsed = ParsedWorklist(file: file)
        guard let header = try nextRecord(&reader, file: file) else { return parsed }
        guard let column = idColumn(in: header.fields) else {
            throw .noIDColumn(path: file, header: String(header.fields.joined(separator: ",").prefix(200)))
        }
        let name = header.fields[column].trimmingCharacters(in: .whitespacesAndNewlines)
        while let record = try nextRecord(&reader, file: file) {
            guard column < record.fields.count else {
                parsed.warnings.append(
                    WorklistWarning(
                        file: file, line: record.line, text: record.fields.joined(separator: ","),
                        reason: "record has no \(name) field"))
                continue
            }
            let value = record.fields[column].trimmingCharacters(in: .whitespacesAndNewlines)
            parsed.take(value, line: record.line, reason: "\(name) is not an IMDb title ID")
        }
        return parsed
    }

    /// The index of the ID column in a header row, by `idColumnNames` preference; `nil` when there is none.
    static func idColumn(in header: [String]) -> Int? {
        let names = header.map { $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
        for wanted in idColumnNames {
            if let index = names.firstIndex(of: wanted.lowercased()) { return index }
        }
        return nil
    }

    /// The next record that is not blank, with an unclosed quote reported against `file`.
    private static func nextRecord(_ reader: inout CSVReader, file: String) throws(WorklistError) -> CSVReader.Record? {
        do throws(CSVReader.UnterminatedQuote) {
            while let record = try reader.next() {
                if !record.isBlank { return record }
            }
            return nil
        } catch {
            throw .malformed(path: file, line: error.line, reason: "a quoted field opened here is never closed")
        }
    }
}
