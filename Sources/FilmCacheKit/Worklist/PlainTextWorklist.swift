import Foundation

/// Reads plain-text worklists: one ID or IMDb title URL a line, `#` comments, blank lines.
public enum PlainTextWorklist {
    /// What one file yielded: its IDs (duplicates kept) and the lines it skipped.
    public struct Parsed: Sendable, Equatable {
        public var entries: [WorklistEntry]
        public var warnings: [WorklistWarning]
    }

    /// Parses `data` as UTF-8 text (a BOM and CRLF line ends are fine); `file` names it in warnings.
    public static func parse(_ data: Data, file: String) -> Parsed {
        var parsed = Parsed(entries: [], warnings: [])
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line = stripComment(rawLine).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            if let id = imdbID(in: line) {
                parsed.entries.append(WorklistEntry(imdbID: id, file: file, line: lineNumber))
            } else {
                parsed.warnings.append(WorklistWarning(file: file, line: lineNumber, text: line))
            }
        }
        return parsed
    }

    /// The line without a `#` comment (one that starts the line or follows white space).
    static func stripComment(_ line: Substring) -> Substring {
        var previous: Character = " "
        for index in line.indices {
            let c = line[index]
            if c == "#" && previous.isWhitespace { return line[..<index] }
            previous = c
        }
        return line
    }

    /// The ID a line names: a bare `tt1234567` or an IMDb title URL; `nil` for anything else.
    public static func imdbID(in line: String) -> String? {
        if isIMDbID(line) { return line }
        let lowered = line.lowercased()
        guard let range = lowered.range(of: "imdb.com/title/") else { return nil }
        let rest = line[range.upperBound...]
        let candidate = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard isIMDbID(candidate), line[..<range.lowerBound].allSatisfy({ !$0.isWhitespace }) else { return nil }
        return String(candidate)
    }

    /// `tt` followed by 7 to 10 ASCII digits.
    public static func isIMDbID(_ text: some StringProtocol) -> Bool {
        let utf8 = text.utf8
        guard (9...12).contains(utf8.count), utf8.starts(with: "tt".utf8) else { return false }
        return utf8.dropFirst(2).allSatisfy { (48...57).contains($0) }
    }
}
