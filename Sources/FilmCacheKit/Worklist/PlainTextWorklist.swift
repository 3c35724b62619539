import Foundation

/// Reads plain-text worklists: one ID or IMDb title URL a line, `#` comments, blank lines.
public enum PlainTextWorklist {
    /// What one file yielded; the same shape for every format.
    public typealias Parsed = ParsedWorklist

    /// Parses `data` as UTF-8 text (a BOM and CRLF line ends are fine); `file` names it in warnings.
    public static func parse(_ data: Data, file: String) -> ParsedWorklist {
        var parsed = ParsedWorklist()
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            LineBreak.forEachLine(in: bytes, from: WorklistFormat.startAfterBOM(bytes)) { number, range in
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
                let line = stripComment(Substring(text)).trimmingCharacters(in: .whitespacesAndNewlines)
                if line.isEmpty { return }
                if let id = imdbID(in: line) {
                    parsed.entries.append(WorklistEntry(imdbID: id, file: file, line: number))
                } else {
                    parsed.warnings.append(WorklistWarning(file: file, line: number, text: line))
                }
            }
        }
        return parsed
    }

    /// The line without a `#` comment (one that starts the line or follows white space).
    static func stripComment(_ line: Substring) -> Substring {
        // `#` is ASCII, so finding it among the bytes is safe and spares a walk over every Character.
        var from = line.startIndex
        while let hash = line.utf8[from...].firstIndex(of: UInt8(ascii: "#")) {
            if line[hash...].first == "#" && line[..<hash].last?.isWhitespace != false { return line[..<hash] }
            from = line.utf8.index(after: hash)
        }
        return line
    }

    /// The ID a line names: a bare `tt1234567` or an IMDb title URL; `nil` for anything else.
    public static func imdbID(in line: String) -> String? {
        if isIMDbID(line) { return line }
        // Searched in `line` itself: lowercasing can change a string's length, and then indices
        // found in the lowercased copy fall outside `line` (a crash) or on the wrong characters.
        guard let range = line.range(of: "imdb.com/title/", options: .caseInsensitive) else { return nil }
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
