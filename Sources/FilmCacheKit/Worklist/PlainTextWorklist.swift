import Foundation

/// Reads plain-text worklists: one ID or IMDb title URL a line, `#` comments, blank lines.
///
/// A line may also start with an ID and go on with text (`tt0068646 The Godfather`) or more IDs
/// (`tt0468569,tt0050083`): it gives every ID among its fields. `TT` in capitals is read as `tt`.
///
/// A line that names no ID may name a film: `Heat (1995)` is a title and its year, in any list;
/// `Heat` alone is a title in a list that names no ID at all (in a list of IDs a line of words is
/// more likely a mistake than a film, and a title costs a call). A line that looks like a broken
/// ID or URL, or holds control characters or bytes that are not UTF-8, is never a title; nor,
/// without a year, is a line with a field separator (`,`, `;`, `|`, tab) or a lone word with a
/// digit in it or a `tt`/`nm` prefix.
public enum PlainTextWorklist {
    /// What one file yielded; the same shape for every format.
    package typealias Parsed = ParsedWorklist

    /// Parses `data` as UTF-8 text (a BOM and CRLF line ends are fine); `file` names it in warnings.
    public static func parse(_ data: Data, file: String) -> ParsedWorklist {
        var parsed = ParsedWorklist(file: file)
        // Titles without a year, kept until the file is read: they count only in a list with no ID.
        var bareTitles: [(query: TitleQuery, line: Int, text: String)] = []
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            // Most lines hold one ID each, so the line count is the size to expect.
            parsed.reserveCapacity(bytes.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 })
            LineBreak.forEachLine(in: bytes, from: WorklistFormat.startAfterBOM(bytes)) { number, range in
                let lineBytes = UnsafeBufferPointer(rebasing: bytes[range])
                if let id = bareID(lineBytes) {
                    parsed.append(packedID: id, line: number)
                    return
                }
                let text = String(decoding: lineBytes, as: UTF8.self)
                let line = stripComment(Substring(text)).trimmingCharacters(in: .whitespacesAndNewlines)
                if line.isEmpty { return }
                let ids = imdbIDs(in: line)
                for id in ids { parsed.append(id, line: number) }
                guard ids.isEmpty else { return }
                switch title(in: line) {
                case (let query, true)?: parsed.append(query, line: number)
                case (let query, false)?: bareTitles.append((query, number, line))
                case nil: parsed.warnings.append(WorklistWarning(file: file, line: number, text: line))
                }
            }
        }
        guard !bareTitles.isEmpty else { return parsed }
        if parsed.packedIDs.count == 0 {
            for bare in bareTitles { parsed.append(bare.query, line: bare.line) }
            parsed.titles.sort { $0.line < $1.line }
        } else {
            for bare in bareTitles {
                parsed.warnings.append(
                    WorklistWarning(
                        file: file, line: bare.line, text: bare.text,
                        reason: "not an IMDb ID or title URL (a title needs its year in a list of IDs)"))
            }
            parsed.warnings.sort { $0.line < $1.line }
        }
        return parsed
    }

    /// The film a line names by title: `Heat (1995)` gives the title and year (`true`), `Heat` the
    /// title alone (`false`); `nil` for a line that cannot be a title.
    static func title(in line: String) -> (TitleQuery, hasYear: Bool)? {
        guard line.count <= TitleQuery.maxLength + 7 else { return nil }
        let lowered = line.lowercased()
        // A broken ID or URL (`tt12`, `1,tt0068646x`, `https://…`) is a mistake to report, not a title to pay for.
        let utf8 = Array(lowered.utf8)
        if utf8.indices.dropLast(2).contains(where: {
            utf8[$0] == UInt8(ascii: "t") && utf8[$0 + 1] == UInt8(ascii: "t") && (48...57).contains(utf8[$0 + 2])
                && ($0 == 0 || !(97...122).contains(utf8[$0 - 1]))
        }) {
            return nil
        }
        if lowered.contains("://") || lowered.contains("imdb.com") || lowered.hasPrefix("www.") { return nil }
        if line.hasSuffix(")"), let open = line.lastIndex(of: "(") {
            let inside = line[line.index(after: open)..<line.index(before: line.endIndex)]
            if inside.count == 4, inside.allSatisfy({ $0.isASCII && $0.isNumber }), let year = Int(inside),
                TitleQuery.years.contains(year), let query = TitleQuery(title: String(line[..<open]), year: year)
            {
                return (query, true)
            }
        }
        // Without a year, a line is a title only when it cannot be something else gone wrong: a
        // record of another format (field separators), or a lone word with a digit or a `tt`/`nm`
        // prefix (a broken ID). `Se7en (1995)` and `Crouching Tiger, Hidden Dragon (2000)` still are.
        if line.contains(where: { $0 == "," || $0 == ";" || $0 == "|" || $0 == "\t" }) { return nil }
        if !line.contains(" "), lowered.hasPrefix("tt") || lowered.hasPrefix("nm") || line.contains(where: \.isNumber) {
            return nil
        }
        return TitleQuery(title: line).map { ($0, false) }
    }

    /// The ID of a line that is a bare ID with at most ASCII spaces and tabs around it, packed as
    /// ``PackedIDs`` packs it; `nil` for any other line.
    ///
    /// The common line, read from its bytes without building and trimming a `String` first;
    /// every other line takes the general path, which gives the same answer for this one.
    static func bareID(_ line: UnsafeBufferPointer<UInt8>) -> UInt64? {
        var start = 0
        var end = line.count
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        return PackedIDs.pack(bytes: UnsafeBufferPointer(rebasing: line[start..<end]))
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

    /// The ID a line names: a bare `tt1234567` (`TT` too) or an IMDb title URL, with or without a
    /// language segment (`imdb.com/de/title/…`); `nil` for anything else.
    public static func imdbID(in line: String) -> String? {
        if let id = id(line[...]) { return id }
        // Searched in `line` itself: lowercasing can change a string's length, and then indices
        // found in the lowercased copy fall outside `line` (a crash) or on the wrong characters.
        guard let range = line.range(of: "imdb.com/", options: .caseInsensitive),
            line[..<range.lowerBound].allSatisfy({ !$0.isWhitespace })
        else { return nil }
        var rest = line[range.upperBound...]
        // A language segment: `de`, `pt-br`, `zh-hant` before `title/`.
        let segment = rest.prefix { $0 != "/" }
        if (2...7).contains(segment.count), segment.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }),
            segment.lowercased() != "title"
        {
            rest = rest.dropFirst(segment.count + 1)
        }
        guard let title = rest.range(of: "title/", options: [.caseInsensitive, .anchored]) else { return nil }
        return id(rest[title.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }

    /// Every ID a line names: the one of ``imdbID(in:)``, or, for a line whose first field is an ID,
    /// every ID among its fields (split at spaces, tabs, `,`, `;` and `|`); none for anything else.
    public static func imdbIDs(in line: String) -> [String] {
        if let id = imdbID(in: line) { return [id] }
        let fields = line.split { $0 == " " || $0 == "\t" || $0 == "," || $0 == ";" || $0 == "|" }
        guard let first = fields.first.flatMap(id) else { return [] }
        return [first] + fields.dropFirst().compactMap(id)
    }

    /// `text` as an ID, `TT` read as `tt`; `nil` when it is not one.
    static func id(_ text: Substring) -> String? {
        if isIMDbID(text) { return String(text) }
        let head = text.utf8.prefix(2)
        guard head.count == 2, head.allSatisfy({ $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "t") }) else {
            return nil
        }
        let lowered = "tt" + text.dropFirst(2)
        return isIMDbID(lowered) ? lowered : nil
    }

    /// `tt` followed by 7 to 10 ASCII digits.
    public static func isIMDbID(_ text: some StringProtocol) -> Bool {
        isIMDbID(bytes: text.utf8)
    }

    /// `tt` followed by 7 to 10 ASCII digits, as UTF-8 bytes.
    static func isIMDbID(bytes: some Collection<UInt8>) -> Bool {
        guard (9...12).contains(bytes.count), bytes.starts(with: "tt".utf8) else { return false }
        return bytes.dropFirst(2).allSatisfy { (48...57).contains($0) }
    }
}
