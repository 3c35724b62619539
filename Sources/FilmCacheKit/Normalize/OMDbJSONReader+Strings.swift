extension OMDbJSONReader {
    /// A key of the top-level object.
    enum Key {
        case known(OMDbKey)
        case unknown(String)
    }

    /// Reads a key, matching OMDb's keys without making a `String`.
    mutating func readKey(guess: OMDbKey?) throws(NormalizeError) -> Key {
        let start = i + 1
        var j = start
        while j < count {
            let b = base[j]
            if b == Byte.quote {
                i = j + 1
                if let key = OMDbKey.match(base + start, count: j - start, guess: guess) { return .known(key) }
                return .unknown(Self.makeString(base + start, j - start))
            }
            if b == Byte.backslash { break }
            j += 1
        }
        let name = try readPlainKey()
        if let key = OMDbKey.allCases.first(where: { $0.name == name }) { return .known(key) }
        return .unknown(name)
    }

    /// Reads a key as text; keys never carry anomalies of their own, so bad UTF-8 is just repaired.
    mutating func readPlainKey() throws(NormalizeError) -> String {
        var ignored: [WireAnomaly] = []
        return try readString(field: .error, anomalies: &ignored)
    }

    /// Reads the string at `i` (its opening quote) as a byte range when it needs no decoding.
    mutating func readValue(field: OMDbKey, anomalies: inout [WireAnomaly]) throws(NormalizeError) -> RawValue {
        let start = i + 1
        var j = start
        var high: UInt8 = 0
        // Eight bytes at a time until a word may hold a quote or a backslash; OMDb values are
        // long runs of plain text, so this is where reading a body spends its time.
        var wideHigh: UInt64 = 0
        while j + 8 <= count {
            let word = UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self)
            if Self.mayHoldQuoteOrBackslash(word) { break }
            wideHigh |= word
            j += 8
        }
        if wideHigh & 0x8080_8080_8080_8080 != 0 { high = 0x80 }
        while j < count {
            let b = base[j]
            if b == Byte.quote {
                i = j + 1
                if high & 0x80 == 0 || UTF8Check.isValid(UnsafeBufferPointer(start: base + start, count: j - start)) {
                    return .bytes(start: start, end: j)
                }
                anomalies.append(WireAnomaly(field: field.name, message: "invalid UTF-8, replaced with U+FFFD"))
                return .text(Self.makeString(base + start, j - start))
            }
            if b == Byte.backslash {
                i = j
                return .text(try readEscapedString(from: start, field: field, anomalies: &anomalies))
            }
            high |= b
            j += 1
        }
        i = count
        throw failure("the end of a string")
    }

    /// Whether any byte of `word` may be `"` or a backslash; false positives only cost a slower scan.
    @inline(__always)
    static func mayHoldQuoteOrBackslash(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ 0x2222_2222_2222_2222
        let backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
        return ((quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & highs != 0
    }

    /// Reads the string at `i` (which is at its opening quote).
    mutating func readString(field: OMDbKey, anomalies: inout [WireAnomaly]) throws(NormalizeError) -> String {
        let start = i + 1
        var j = start
        var high: UInt8 = 0
        while j < count {
            let b = base[j]
            if b == Byte.quote {
                i = j + 1
                let bytes = UnsafeBufferPointer(start: base + start, count: j - start)
                if high & 0x80 != 0, !UTF8Check.isValid(bytes) {
                    anomalies.append(WireAnomaly(field: field.name, message: "invalid UTF-8, replaced with U+FFFD"))
                }
                return String(decoding: bytes, as: UTF8.self)
            }
            if b == Byte.backslash {
                i = j
                return try readEscapedString(from: start, field: field, anomalies: &anomalies)
            }
            high |= b
            j += 1
        }
        i = count
        throw failure("the end of a string")
    }

    /// Text of bytes known to be a complete key, repaired if they are not UTF-8.
    static func makeString(_ start: UnsafePointer<UInt8>, _ length: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: start, count: length), as: UTF8.self)
    }

    /// Finishes a string that has escapes, from `start` (after its quote); `i` is at the first backslash.
    mutating func readEscapedString(
        from start: Int, field: OMDbKey, anomalies: inout [WireAnomaly]
    ) throws(NormalizeError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: base + start, count: i - start))
        var loneSurrogate = false
        while i < count {
            let b = base[i]
            if b == Byte.quote {
                i += 1
                if loneSurrogate {
                    anomalies.append(
                        WireAnomaly(field: field.name, message: "lone UTF-16 surrogate replaced with U+FFFD"))
                }
                if !scratch.withUnsafeBufferPointer(UTF8Check.isValid) {
                    anomalies.append(WireAnomaly(field: field.name, message: "invalid UTF-8, replaced with U+FFFD"))
                }
                return String(decoding: scratch, as: UTF8.self)
            }
            guard b == Byte.backslash else {
                scratch.append(b)
                i += 1
                continue
            }
            guard i + 1 < count else { throw failure("an escape") }
            let e = base[i + 1]
            i += 2
            switch e {
            case Byte.quote, Byte.backslash, Byte.slash: scratch.append(e)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var unit = try readHex4()
                if (0xD800...0xDBFF).contains(unit) {
                    if i + 1 < count, base[i] == Byte.backslash, base[i + 1] == UInt8(ascii: "u") {
                        let save = i
                        i += 2
                        let low = try readHex4()
                        if (0xDC00...0xDFFF).contains(low) {
                            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            i = save
                            unit = 0xFFFD
                            loneSurrogate = true
                        }
                    } else {
                        unit = 0xFFFD
                        loneSurrogate = true
                    }
                } else if (0xDC00...0xDFFF).contains(unit) {
                    unit = 0xFFFD
                    loneSurrogate = true
                }
                appendUTF8(Unicode.Scalar(unit) ?? "\u{FFFD}")
            default:
                i -= 1
                throw failure("a valid escape")
            }
        }
        throw failure("the end of a string")
    }

    /// Reads the four hex digits of a `\u` escape.
    mutating func readHex4() throws(NormalizeError) -> UInt32 {
        guard i + 4 <= count else {
            i = count
            throw failure("four hex digits")
        }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = base[i]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw failure("a hex digit")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    /// Appends the UTF-8 of `scalar` to `scratch`.
    mutating func appendUTF8(_ scalar: Unicode.Scalar) {
        for unit in UTF8.encode(scalar)! { scratch.append(unit) }
    }
}
