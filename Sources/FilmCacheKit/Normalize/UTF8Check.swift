/// A plain UTF-8 validator, so the reader can tell when `String(decoding:)` is about to repair.
///
/// The standard library's validating initializer goes through generic metadata lookups that
/// cost more than the check itself; the reader only calls this for strings with non-ASCII bytes.
package enum UTF8Check {
    /// Whether `bytes` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
    package static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 0
        let n = bytes.count
        while k < n {
            let b0 = bytes[k]
            if b0 < 0x80 {
                k += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upper = 0x9F
            case 0xF0:
                length = 4
                lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upper = 0x8F
            default: return false
            }
            guard k + length <= n, (lower...upper).contains(bytes[k + 1]) else { return false }
            for offset in 2..<max(2, length) where bytes[k + offset] & 0xC0 != 0x80 { return false }
            k += length
        }
        return true
    }
}
