/// Splits CSV bytes into records, each with the line it starts on (RFC 4180, read leniently).
///
/// Fields are separated by commas, records by LF, CRLF or a lone CR. A field that opens with a
/// double quote runs to its closing quote and may hold commas, line breaks and doubled quotes
/// (`""` stands for `"`); line breaks inside it come back as LF. Where RFC 4180 is strict this
/// reader keeps going: a quote inside an unquoted field is text, and text after a closing quote
/// joins the field. Only a quote that is never closed is an error, since everything after it
/// would otherwise vanish into one field. Invalid UTF-8 is repaired to U+FFFD, field by field.
struct CSVReader {
    /// One record: its fields, unquoted, and the 1-based line it starts on.
    struct Record: Equatable {
        /// The fields in order, quotes removed.
        var fields: [String]
        /// The 1-based line the record starts on.
        var line: Int

        /// Whether every field is empty or white space (a blank line).
        var isBlank: Bool { fields.allSatisfy { $0.allSatisfy(\.isWhitespace) } }
    }

    /// A quoted field with no closing quote; `line` is where it opens.
    struct UnterminatedQuote: Error, Equatable {
        /// The 1-based line the open quote is on.
        var line: Int
    }

    private let bytes: [UInt8]
    private var position: Int
    private var line = 1
    private let keepsLineBreaks: Bool

    /// A reader over `bytes`; a leading UTF-8 byte order mark is skipped. With `keepsLineBreaks`
    /// a line break inside a quoted field comes back as it was written (CRLF, CR or LF), so that
    /// text read back from an export is the text written.
    init(_ bytes: [UInt8], keepsLineBreaks: Bool = false) {
        self.bytes = bytes
        self.keepsLineBreaks = keepsLineBreaks
        position = WorklistFormat.startAfterBOM(bytes)
    }

    /// The next record, or `nil` at the end of the bytes.
    mutating func next() throws(UnterminatedQuote) -> Record? {
        guard position < bytes.count else { return nil }
        var cursor = Cursor(position: position, line: line, keepsLineBreaks: keepsLineBreaks)
        defer { (position, line) = (cursor.position, cursor.line) }
        return try bytes.withUnsafeBufferPointer { buffer throws(UnterminatedQuote) in try cursor.record(in: buffer) }
    }

    /// The scanning itself, over a buffer so that a long field costs a copy, not a call per byte.
    private struct Cursor {
        var position: Int
        var line: Int
        let keepsLineBreaks: Bool
        // Stored, not global: a debug build would call a global's lazy initializer once a byte.
        private let comma = UInt8(ascii: ",")
        private let quote = UInt8(ascii: "\"")
        private let lineFeed = UInt8(ascii: "\n")
        private let carriageReturn = UInt8(ascii: "\r")

        init(position: Int, line: Int, keepsLineBreaks: Bool) {
            self.position = position
            self.line = line
            self.keepsLineBreaks = keepsLineBreaks
        }

        /// Reads the record that starts at `position`.
        mutating func record(in bytes: UnsafeBufferPointer<UInt8>) throws(UnterminatedQuote) -> Record {
            let start = line
            var fields: [String] = []
            while true {
                let (field, last) = try self.field(in: bytes)
                fields.append(field)
                guard last == comma else { return Record(fields: fields, line: start) }
            }
        }

        /// Reads one field and the byte that ended it (a comma, a line break, or `nil` at the end).
        private mutating func field(in bytes: UnsafeBufferPointer<UInt8>) throws(UnterminatedQuote) -> (String, UInt8?)
        {
            let isQuoted = position < bytes.count && bytes[position] == quote
            var text: [UInt8] = []
            if isQuoted {
                position += 1
                try quoted(in: bytes, into: &text)
            }
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                guard byte != comma && byte != lineFeed && byte != carriageReturn else { break }
                position += 1
            }
            let field: String
            if isQuoted {
                text += bytes[start..<position]
                field = String(decoding: text, as: UTF8.self)
            } else {
                // An unquoted field is its bytes as they stand: read once, into the string.
                field = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            }
            guard position < bytes.count else { return (field, nil) }
            let last = bytes[position]
            if last == comma {
                position += 1
            } else {
                endLine(in: bytes)
            }
            return (field, last)
        }

        /// Reads a quoted field's content, from just past its open quote to just past its close quote.
        private mutating func quoted(in bytes: UnsafeBufferPointer<UInt8>, into text: inout [UInt8])
            throws(UnterminatedQuote)
        {
            let opened = line
            var run = position
            while position < bytes.count {
                let byte = bytes[position]
                guard byte == quote || byte == lineFeed || byte == carriageReturn else {
                    position += 1
                    continue
                }
                text += bytes[run..<position]
                if byte != quote {
                    let breakStart = position
                    endLine(in: bytes)
                    if keepsLineBreaks { text += bytes[breakStart..<position] } else { text.append(lineFeed) }
                } else if position + 1 < bytes.count && bytes[position + 1] == quote {
                    text.append(quote)
                    position += 2
                } else {
                    position += 1
                    return
                }
                run = position
            }
            throw UnterminatedQuote(line: opened)
        }

        /// Steps over the line break at `position` and counts it.
        private mutating func endLine(in bytes: UnsafeBufferPointer<UInt8>) {
            line += 1
            position += LineBreak.length(at: position, in: bytes)
        }
    }
}
