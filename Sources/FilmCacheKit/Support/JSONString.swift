/// Writes JSON string literals; shared by the canonical film JSON, the list columns and export lines
/// written straight from a database row.
package enum JSONString {
    /// Appends `text` quoted and escaped (quote, backslash, control bytes); other UTF-8 passes through.
    static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { append(utf8: $0, to: &out) }
    }

    /// Appends the UTF-8 `bytes` quoted and escaped as ``append(_:to:)`` escapes a string: the same
    /// bytes for the same text. The caller checks that `bytes` are well-formed UTF-8.
    ///
    /// Most titles, names and genres need no escaping, so they are copied whole; otherwise the runs
    /// between the bytes that need it are.
    package static func append(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var run = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            if index > run { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index])) }
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            default:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            }
            index += 1
            run = index
        }
        if count > run { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<count])) }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `bytes` (between a string literal's quotes) are exactly what ``append(utf8:to:)``
    /// writes for some text: well-formed UTF-8, no raw control byte, quote or backslash, and only
    /// the escapes it writes (`\"`, `\\`, `\n`, `\r`, `\t`, `\u00XX` in lower case for the other
    /// control bytes). Such a literal read and written again gives the same bytes.
    package static func isWrittenForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        var ascii = true
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte >= 0x80 {
                ascii = false
            } else if byte < 0x20 || byte == UInt8(ascii: "\"") {
                return false
            } else if byte == UInt8(ascii: "\\") {
                guard index + 1 < count else { return false }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                    continue
                case UInt8(ascii: "u"):
                    guard index + 5 < count, bytes[index + 2] == UInt8(ascii: "0"),
                        bytes[index + 3] == UInt8(ascii: "0"),
                        let high = hexDigits.firstIndex(of: bytes[index + 4]), high < 2,
                        let low = hexDigits.firstIndex(of: bytes[index + 5])
                    else { return false }
                    let value = high << 4 | low
                    guard value != 0x09 && value != 0x0A && value != 0x0D else { return false }
                    index += 6
                    continue
                default: return false
                }
            }
            index += 1
        }
        return ascii || UTF8Check.isValid(bytes)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
