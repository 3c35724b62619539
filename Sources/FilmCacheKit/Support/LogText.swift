/// Text from outside (a server's body, a worklist line, a film field) made safe to print on a terminal or in a log line.
///
/// A server controls what it sends: a `Year` of `ESC[2J…\r\nts=…` must not clear the terminal or
/// forge a log line. Every control character (C0, DEL, C1), the Unicode line and paragraph
/// separators and the bidirectional overrides and isolates are written as escapes (`\n`, `\r`,
/// `\t`, `\u{1B}`), and the backslash as `\\`, so the escaped text reads back unambiguously.
public enum LogText {
    /// `text` with every character that could move the cursor, end a line or reorder text escaped.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.append(scalar)
                continue
            }
            let escape: String =
                switch scalar {
                case "\n": "\\n"
                case "\r": "\\r"
                case "\t": "\\t"
                case "\\": "\\\\"
                default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    /// Whether `scalar` is written as an escape: the backslash, and every ``isControl(_:)`` character.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\\" || isControl(scalar)
    }

    /// C0, DEL, C1, the line and paragraph separators, and the bidirectional marks, embeddings,
    /// overrides and isolates: what no text from outside may print raw, in any output or log format.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
        default: false
        }
    }
}
