import Foundation

/// Reads CSV worklists: IMDb's own list and watchlist exports, Letterboxd's exports, or any CSV
/// whose header names an ID column or a title column.
///
/// IMDb's export puts the title ID in the `Const` column; other tools call it `imdbID`, `imdb_id`
/// or `tconst`. Every record after the header gives one ID from that column; a record whose value
/// is not an IMDb title ID (a person's `nm…`, a short record) is skipped with a warning at the
/// line the record starts on.
///
/// A list with no ID there names films by title: Letterboxd's `watchlist.csv`, `ratings.csv`,
/// `diary.csv` and `watched.csv` (`Date,Name,Year,Letterboxd URI`, …) or any CSV with a `Title`
/// or `Name` column, a `Year` column and perhaps a `Type` one. A record with an empty ID field
/// and a title is read by its title too.
public enum CSVWorklist {
    /// Header names that hold the ID, in order of preference; matched ignoring case and surrounding spaces.
    package static let idColumnNames = ["Const", "imdbID", "imdb_id", "tconst"]
    /// Header names that hold a title, in order of preference.
    package static let titleColumnNames = ["Title", "Name", "Film", "Movie"]
    /// Header names that hold a year, in order of preference.
    package static let yearColumnNames = ["Year", "Release Year"]
    /// Header names that hold OMDb's type, in order of preference.
    package static let typeColumnNames = ["Type", "Title Type"]
    /// The column only Letterboxd's exports have.
    package static let letterboxdColumn = "Letterboxd URI"

    /// Parses `data` as CSV with a header row; `file` names it in warnings and errors.
    ///
    /// Throws `noIDColumn` when the header has neither an ID column nor a title column, and `malformed` for a quote never closed.
    public static func parse(_ data: Data, file: String) throws(WorklistError) -> ParsedWorklist {
        var reader = CSVReader(Array(data))
        var parsed = ParsedWorklist(file: file)
        parsed.kind = "CSV"
        guard let header = try nextRecord(&reader, file: file) else { return parsed }
        let idColumn = idColumn(in: header.fields)
        let titleColumn = column(in: header.fields, named: titleColumnNames)
        guard idColumn != nil || titleColumn != nil else {
            throw .noIDColumn(path: file, header: String(header.fields.joined(separator: ",").prefix(200)))
        }
        if column(in: header.fields, named: [letterboxdColumn]) != nil { parsed.kind = WorklistFile.letterboxd }
        let yearColumn = column(in: header.fields, named: yearColumnNames)
        let typeColumn = column(in: header.fields, named: typeColumnNames)
        let name = header.fields[idColumn ?? titleColumn ?? 0].trimmingCharacters(in: .whitespacesAndNewlines)
        while let record = try nextRecord(&reader, file: file) {
            // The field in `column`, trimmed; `nil` for a record too short, and for an empty one unless `empty`.
            func field(_ column: Int?, empty: Bool = false) -> String? {
                guard let column, column < record.fields.count else { return nil }
                let value = record.fields[column].trimmingCharacters(in: .whitespacesAndNewlines)
                return value.isEmpty && !empty ? nil : value
            }
            // Without a title column an empty ID is reported as such; with one, the record is read by its title.
            if let idColumn, let value = field(idColumn, empty: titleColumn == nil) {
                parsed.take(value, line: record.line, reason: "\(name) is not an IMDb title ID")
            } else if let title = field(titleColumn),
                let query = TitleQuery(
                    title: title, year: field(yearColumn).flatMap { Int($0) }, type: field(typeColumn))
            {
                parsed.append(query, line: record.line)
            } else {
                let titleName = titleColumn.map { header.fields[$0].trimmingCharacters(in: .whitespacesAndNewlines) }
                let wanted = [idColumn == nil ? nil : name, titleName].compactMap { $0 }.joined(separator: " or ")
                parsed.warnings.append(
                    WorklistWarning(
                        file: file, line: record.line, text: record.fields.joined(separator: ","),
                        reason: "record has no \(wanted) field"))
            }
        }
        return parsed
    }

    /// The index of the ID column in a header row, by `idColumnNames` preference; `nil` when there is none.
    static func idColumn(in header: [String]) -> Int? {
        column(in: header, named: idColumnNames)
    }

    /// The index of the first of `wanted` in a header row (ignoring case and surrounding spaces); `nil` when none is there.
    static func column(in header: [String], named wanted: [String]) -> Int? {
        let names = header.map { $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }
        for wanted in wanted {
            if let index = names.firstIndex(of: wanted.lowercased()) { return index }
        }
        return nil
    }

    /// Whether a header row makes a worklist: it names an ID column, or a title column beside a
    /// year or Letterboxd's URI column.
    static func isWorklistHeader(_ header: [String]) -> Bool {
        idColumn(in: header) != nil
            || column(in: header, named: titleColumnNames) != nil
                && column(in: header, named: yearColumnNames + [letterboxdColumn]) != nil
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
