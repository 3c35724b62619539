/// The line on which each top-level key of a TOML document is defined.
///
/// A small scanner, not a parser: it follows strings (basic, literal, multi-line), comments
/// and brackets well enough to tell a key at the start of a line from text inside a value.
/// A key defined by a table header (`[name]`, `[[name]]`) or a dotted key (`name.part = …`)
/// is found on that header or line. The document is assumed valid; TOMLKit has checked it.
struct TOMLKeyLines {
    private var lines: [String: Int] = [:]

    /// Scans `text`.
    init(_ text: String) {
        var scanner = Scanner()
        var number = 0
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            let bytes = Array(line)
            if let key = scanner.definedKey(in: bytes), lines[key] == nil { lines[key] = number }
            scanner.consume(bytes)
        }
    }

    /// The 1-based line of `key`, or nil when the scan did not find it.
    func line(of key: String) -> Int? { lines[key] }

    /// What the scan carries from one line to the next.
    private struct Scanner {
        /// Whether the scan is inside a multi-line string, and which kind.
        enum Mode { case normal, multilineBasic, multilineLiteral }

        /// Where the previous line left off.
        var mode = Mode.normal
        /// Open `[` and `{` of values spanning lines.
        var depth = 0
        /// After the first table header, plain keys belong to a table, not the top level.
        var inTable = false

        /// The top-level key this line defines, if it starts with one.
        mutating func definedKey(in bytes: [UInt8]) -> String? {
            guard mode == .normal, depth == 0 else { return nil }
            var i = bytes.firstIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } ?? bytes.endIndex
            guard i < bytes.endIndex else { return nil }
            if bytes[i] == UInt8(ascii: "[") {
                inTable = true
                while i < bytes.endIndex, bytes[i] == UInt8(ascii: "[") || bytes[i] == UInt8(ascii: " ") { i += 1 }
                return Self.firstSegment(bytes, from: i)?.key
            }
            guard !inTable, let (key, end) = Self.firstSegment(bytes, from: i) else { return nil }
            let rest = bytes[end...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            guard let next = rest.first, next == UInt8(ascii: "=") || next == UInt8(ascii: ".") else { return nil }
            return key
        }

        /// Follows strings, comments and brackets through one line.
        mutating func consume(_ bytes: [UInt8]) {
            if mode == .normal, depth == 0, inTable,
                bytes.first(where: { $0 != UInt8(ascii: " ") }) == UInt8(ascii: "[")
            {
                return  // a table header holds no value
            }
            var i = 0
            while i < bytes.count {
                switch mode {
                case .multilineBasic, .multilineLiteral:
                    let basic = mode == .multilineBasic
                    if basic, bytes[i] == UInt8(ascii: "\\") {
                        i += 2  // an escaped character, perhaps a quote
                    } else if Self.triple(bytes, at: i, basic ? UInt8(ascii: "\"") : UInt8(ascii: "'")) {
                        mode = .normal
                        i += 3
                    } else {
                        i += 1
                    }
                case .normal:
                    let byte = bytes[i]
                    if byte == UInt8(ascii: "#") { return }
                    if Self.triple(bytes, at: i, UInt8(ascii: "\"")) {
                        mode = .multilineBasic
                        i += 3
                    } else if Self.triple(bytes, at: i, UInt8(ascii: "'")) {
                        mode = .multilineLiteral
                        i += 3
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        i = Self.endOfString(bytes, from: i)
                    } else {
                        if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") { depth += 1 }
                        if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") { depth = max(0, depth - 1) }
                        i += 1
                    }
                }
            }
        }

        /// Whether three `quote`s start at `i`.
        static func triple(_ bytes: [UInt8], at i: Int, _ quote: UInt8) -> Bool {
            i + 2 < bytes.count && bytes[i] == quote && bytes[i + 1] == quote && bytes[i + 2] == quote
        }

        /// The index after the single-line string opening at `start`.
        static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
            let quote = bytes[start]
            var i = start + 1
            while i < bytes.count {
                if quote == UInt8(ascii: "\""), bytes[i] == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if bytes[i] == quote { return i + 1 }
                i += 1
            }
            return i
        }

        /// A bare or quoted key starting at `start`, and the index after it.
        static func firstSegment(_ bytes: [UInt8], from start: Int) -> (key: String, end: Int)? {
            guard start < bytes.count else { return nil }
            let first = bytes[start]
            if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
                let end = endOfString(bytes, from: start)
                guard end - start >= 2, bytes[end - 1] == first else { return nil }
                return (String(decoding: bytes[(start + 1)..<(end - 1)], as: UTF8.self), end)
            }
            var end = start
            while end < bytes.count, isBareKeyByte(bytes[end]) { end += 1 }
            guard end > start else { return nil }
            return (String(decoding: bytes[start..<end], as: UTF8.self), end)
        }

        /// Whether `byte` may appear in a bare key.
        static func isBareKeyByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }
}
