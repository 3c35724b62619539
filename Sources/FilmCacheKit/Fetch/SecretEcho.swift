#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds a secret (the OMDb key) that an upstream echoed back, so that nothing holding it is
/// stored, logged or served.
///
/// Proxies, CDNs and error pages repeat the request URL, the key in it, in their answers: as it
/// was sent, percent-encoded, or inside a JSON string with `\u0061`-style or `\/` escapes, in any
/// case. ``isEchoed(in:)`` looks through each of those spellings; ``redacting(_:)`` puts `***`
/// where the key stands as written, the only spelling it can cut out while keeping the rest.
///
/// The key counts where it stands as a word of its own (no letter or digit right before or
/// after it, as in a URL's `apikey=KEY&`). A key shorter than ``shortLength`` (OMDb's are eight
/// characters; short ones are for tests and stand-ins) counts only right after `apikey=`, so a
/// key such as `demo` does not turn a plot that says "demo" into an echo.
package struct SecretEcho: Sendable {
    /// The secret's bytes, ASCII letters lowercased.
    private let folded: [UInt8]

    /// What stands for a text that held the secret in a spelling that cannot be masked.
    /// (It says "key" but not "API key": OMDb's messages are told apart by such words.)
    package static let withheld = "(an upstream text that echoed the key, withheld)"

    /// What stands where the secret stood.
    package static let mask: [UInt8] = Array("***".utf8)

    /// The echo of `secret`.
    public init(_ secret: String) {
        folded = secret.utf8.map(Self.lower)
    }

    /// Whether `bytes` hold the secret in any spelling an echo takes.
    package func isEchoed(in bytes: [UInt8]) -> Bool {
        guard !folded.isEmpty else { return false }
        if range(in: bytes, from: 0) != nil { return true }
        guard Self.holdsEscapes(bytes) else { return false }
        // Every order of up to three unescapings (JSON's, the URL's, HTML's numeric entities, the
        // URL's twice for an encoded URL encoded again): a JSON string holding an encoded URL, an
        // encoded echo of a JSON text, an error page quoting either.
        let steps: [([UInt8]) -> [UInt8]] = [Self.unescapingJSON, Self.decodingPercent, Self.decodingEntities]
        var layer = [bytes]
        for _ in 0..<3 {
            layer = layer.flatMap { text in steps.map { $0(text) } }.filter { $0 != bytes }
            if layer.contains(where: { range(in: $0, from: 0) != nil }) { return true }
        }
        return false
    }

    /// Whether `text` holds the secret in any spelling an echo takes.
    package func isEchoed(in text: String) -> Bool { isEchoed(in: Array(text.utf8)) }

    /// `bytes` with every occurrence of the secret as written (any case) replaced by ``mask``.
    package func redacting(_ bytes: [UInt8]) -> [UInt8] {
        guard !folded.isEmpty, var found = range(in: bytes, from: 0) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var start = 0
        while true {
            out += bytes[start..<found.lowerBound]
            out += Self.mask
            start = found.upperBound
            guard let next = range(in: bytes, from: start) else { break }
            found = next
        }
        out += bytes[start...]
        return out
    }

    /// `text` with the secret cut out: every occurrence as written masked, and the whole text
    /// replaced by `replacement` when it still holds the secret in an escaped spelling.
    package func redacting(_ text: String, replacement: String) -> String {
        let bytes = redacting(Array(text.utf8))
        return isEchoed(in: bytes) ? replacement : String(decoding: bytes, as: UTF8.self)
    }

    /// Keys shorter than this count only after `apikey=`.
    package static let shortLength = 8

    private static let parameter: [UInt8] = Array("apikey=".utf8)

    /// The first occurrence of the secret (any case, a word of its own; a short one after
    /// `apikey=`) in `bytes` at or after `start`.
    private func range(in bytes: [UInt8], from start: Int) -> Range<Int>? {
        let count = folded.count
        guard bytes.count - start >= count else { return nil }
        // Every body a warm keeps is scanned: the places where the first byte stands (in either case) are found
        // with memchr, and only there is the rest compared.
        return bytes.withUnsafeBufferPointer { bytes in
            folded.withUnsafeBufferPointer { folded in
                let first = folded[0]
                let upper = (0x61...0x7A).contains(first) ? first - 0x20 : first
                let parameter = Self.parameter.count
                let last = bytes.count - count
                var nextLower = Self.find(first, in: bytes, from: start, through: last)
                var nextUpper = upper == first ? nil : Self.find(upper, in: bytes, from: start, through: last)
                while true {
                    // The earlier of the two next places, and the next place of its case after it.
                    let index: Int
                    if let lower = nextLower, nextUpper.map({ lower < $0 }) ?? true {
                        index = lower
                        nextLower = Self.find(first, in: bytes, from: lower + 1, through: last)
                    } else if let other = nextUpper {
                        index = other
                        nextUpper = Self.find(upper, in: bytes, from: other + 1, through: last)
                    } else {
                        return nil
                    }
                    if Self.matches(bytes, at: index, folded),
                        index == 0 || !Self.isWordByte(bytes[index - 1]),
                        index + count == bytes.count || !Self.isWordByte(bytes[index + count]),
                        count >= Self.shortLength
                            || (index >= parameter
                                && Self.parameter.withUnsafeBufferPointer {
                                    Self.matches(bytes, at: index - parameter, $0)
                                })
                    {
                        return index..<(index + count)
                    }
                }
            }
        }
    }

    /// The first index of `byte` in `bytes[from...through]`, found with memchr.
    private static func find(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from: Int, through: Int) -> Int? {
        guard from <= through, let base = bytes.baseAddress,
            let found = memchr(base + from, Int32(byte), through - from + 1)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether `bytes` at `index` hold `word` (lowercase), any case.
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ word: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        guard index + word.count <= bytes.count else { return false }
        for offset in 0..<word.count where lower(bytes[index + offset]) != word[offset] { return false }
        return true
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }

    /// `bytes` with every escape `escape` reads at an index (what it stands for, and its length)
    /// replaced; anything else kept. The one scan the three decodings share.
    private static func decoding(
        _ bytes: [UInt8], _ escape: (_ bytes: [UInt8], _ index: Int) -> (decoded: [UInt8], length: Int)?
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if let (decoded, length) = escape(bytes, index) {
                out += decoded
                index += length
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// `%XX` escapes decoded; anything else kept.
    static func decodingPercent(_ bytes: [UInt8]) -> [UInt8] {
        decoding(bytes) { bytes, index in
            guard bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            else { return nil }
            return ([high << 4 | low], 3)
        }
    }

    /// Whether `bytes` hold an escape any decoding would undo: `%XX`, `\\u` or `\\/`, `&#`. Most film
    /// bodies hold none (a rating's `98%` is no escape), so the decodings cost nothing on them.
    static func holdsEscapes(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer(holdsEscapes)
    }

    private static func holdsEscapes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Each escape's first byte is looked for with memchr: most bodies hold few or none.
        let last = bytes.count - 2
        func isHex(_ byte: UInt8) -> Bool { hexValue(byte) != nil }
        func any(_ byte: UInt8, startingAnEscape: (Int) -> Bool) -> Bool {
            var at = find(byte, in: bytes, from: 0, through: last)
            while let index = at {
                if startingAnEscape(index) { return true }
                at = find(byte, in: bytes, from: index + 1, through: last)
            }
            return false
        }
        // `%XX`, `\u` or `\/`, `&#`.
        if any(
            UInt8(ascii: "%"),
            startingAnEscape: { $0 + 2 < bytes.count && isHex(bytes[$0 + 1]) && isHex(bytes[$0 + 2]) })
        {
            return true
        }
        if any(
            UInt8(ascii: "\\"),
            startingAnEscape: { bytes[$0 + 1] == UInt8(ascii: "u") || bytes[$0 + 1] == UInt8(ascii: "/") })
        {
            return true
        }
        return any(UInt8(ascii: "&")) { bytes[$0 + 1] == UInt8(ascii: "#") }
    }

    /// HTML's numeric character references decoded (`&#97;`, `&#x61;`); anything else kept.
    static func decodingEntities(_ bytes: [UInt8]) -> [UInt8] {
        decoding(bytes) { bytes, index in
            guard bytes[index] == UInt8(ascii: "&"), index + 3 < bytes.count, bytes[index + 1] == UInt8(ascii: "#"),
                let semicolon = bytes[(index + 2)...].prefix(8).firstIndex(of: UInt8(ascii: ";"))
            else { return nil }
            let hex = bytes[index + 2] == UInt8(ascii: "x") || bytes[index + 2] == UInt8(ascii: "X")
            let digits = bytes[(index + (hex ? 3 : 2))..<semicolon]
            guard !digits.isEmpty, let value = UInt32(String(decoding: digits, as: UTF8.self), radix: hex ? 16 : 10),
                let scalar = Unicode.Scalar(value)
            else { return nil }
            return (Array(String(Character(scalar)).utf8), semicolon + 1 - index)
        }
    }

    /// JSON string escapes decoded (`\uXXXX` to UTF-8, `\/` to `/`, and the rest); anything else kept.
    static func unescapingJSON(_ bytes: [UInt8]) -> [UInt8] {
        decoding(bytes) { bytes, index in
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else { return nil }
            let escaped = bytes[index + 1]
            if escaped == UInt8(ascii: "u"), index + 5 < bytes.count,
                let value = (2...5).reduce(
                    UInt32?(0),
                    { sum, offset in
                        guard let sum, let digit = hexValue(bytes[index + offset]) else { return nil }
                        return sum << 4 | UInt32(digit)
                    })
            {
                return (Array(String(Unicode.Scalar(value).map(Character.init) ?? "\u{FFFD}").utf8), 6)
            }
            return ([escaped], 2)
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
