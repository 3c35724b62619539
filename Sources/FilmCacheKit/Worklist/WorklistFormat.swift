import Foundation

/// How a worklist file is written; `auto` tells from the content.
public enum WorklistFormat: String, CaseIterable, Sendable {
    /// Detect each file's format from its content (see `detect(_:)`).
    case auto
    /// One ID or IMDb title URL a line, `#` comments (`PlainTextWorklist`).
    case text
    /// CSV with a header row naming an ID column, such as IMDb's list export (`CSVWorklist`).
    case csv
    /// A JSON array of ID strings or of objects that carry one (`JSONWorklist`).
    case json

    /// The format `data` is written in, never `.auto`.
    ///
    /// After a byte order mark and white space: `[` or `{` means JSON; a first line with a comma
    /// that names an ID column (`Const`, `imdbID`, `imdb_id`, `tconst`), or a title column (`Title`,
    /// `Name`) beside `Year` or `Letterboxd URI`, means CSV (Letterboxd's exports among them), unless it opens
    /// with `#` (a text worklist's comment); anything else is text.
    public static func detect(_ data: Data) -> WorklistFormat {
        let start = data[startAfterBOM(data)...].firstIndex { !isWhiteSpace($0) } ?? data.endIndex
        let rest = data[start...]
        if rest.first == UInt8(ascii: "[") || rest.first == UInt8(ascii: "{") { return .json }
        guard rest.first != UInt8(ascii: "#") else { return .text }
        // A header longer than this is no header; the cap keeps a huge first line from being read twice.
        let firstLine = rest.prefix(65_536).prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        var reader = CSVReader(Array(firstLine))
        guard let header = try? reader.next(), header.fields.count > 1, CSVWorklist.isWorklistHeader(header.fields)
        else { return .text }
        return .csv
    }

    /// Parses `data` in this format (`.auto`: the detected one); `file` names it in warnings and errors.
    public func parse(_ data: Data, file: String) throws(WorklistError) -> ParsedWorklist {
        switch self {
        case .auto: try Self.detect(data).parse(data, file: file)
        case .text: PlainTextWorklist.parse(data, file: file)
        case .csv: try CSVWorklist.parse(data, file: file)
        case .json: try JSONWorklist.parse(data, file: file)
        }
    }

    /// The index just past a UTF-8 byte order mark at the start of `bytes`, or their start if there is none.
    static func startAfterBOM<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bytes.Index {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.index(bytes.startIndex, offsetBy: 3) : bytes.startIndex
    }

    /// Space, tab, line feed or carriage return: the white space JSON and the line formats share.
    static func isWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
