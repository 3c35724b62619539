extension OMDbJSONReader {
    /// Validates and skips the value at `i`; returns a short description for warnings.
    mutating func skipValue(depth: Int) throws(NormalizeError) -> String {
        guard depth < Self.maxDepth else { throw .malformedJSON("nested deeper than \(Self.maxDepth) levels") }
        guard i < count else { throw failure("a value") }
        let start = i
        switch base[i] {
        case Byte.quote:
            try skipString()
            return "string"
        case Byte.leftBrace:
            i += 1
            skipSpace()
            if i < count, base[i] == Byte.rightBrace {
                i += 1
                return "an object"
            }
            while true {
                guard i < count, base[i] == Byte.quote else { throw failure("a key") }
                try skipString()
                skipSpace()
                guard i < count, base[i] == Byte.colon else { throw failure("':' after a key") }
                i += 1
                skipSpace()
                _ = try skipValue(depth: depth + 1)
                skipSpace()
                guard i < count else { throw failure("',' or '}'") }
                if base[i] == Byte.comma {
                    i += 1
                    skipSpace()
                } else if base[i] == Byte.rightBrace {
                    i += 1
                    return "an object"
                } else {
                    throw failure("',' or '}'")
                }
            }
        case Byte.leftBracket:
            i += 1
            skipSpace()
            if i < count, base[i] == Byte.rightBracket {
                i += 1
                return "a list"
            }
            while true {
                _ = try skipValue(depth: depth + 1)
                skipSpace()
                guard i < count else { throw failure("',' or ']'") }
                if base[i] == Byte.comma {
                    i += 1
                    skipSpace()
                } else if base[i] == Byte.rightBracket {
                    i += 1
                    return "a list"
                } else {
                    throw failure("',' or ']'")
                }
            }
        case UInt8(ascii: "t"):
            try skipLiteral("true")
            return "true"
        case UInt8(ascii: "f"):
            try skipLiteral("false")
            return "false"
        case UInt8(ascii: "n"):
            try skipLiteral("null")
            return "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber()
            let text = String(
                decoding: UnsafeBufferPointer(start: base + start, count: min(i - start, 24)), as: UTF8.self)
            return "number \(text)"
        default:
            throw failure("a value")
        }
    }

    /// Skips a string, checking its escapes.
    mutating func skipString() throws(NormalizeError) {
        i += 1
        while i < count {
            let b = base[i]
            if b == Byte.quote {
                i += 1
                return
            }
            if b == Byte.backslash {
                guard i + 1 < count else { break }
                switch base[i + 1] {
                case Byte.quote, Byte.backslash, Byte.slash, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                case UInt8(ascii: "u"):
                    i += 2
                    _ = try readHex4()
                default:
                    i += 1
                    throw failure("a valid escape")
                }
            } else {
                i += 1
            }
        }
        i = count
        throw failure("the end of a string")
    }

    /// Skips `true`, `false` or `null`.
    mutating func skipLiteral(_ word: StaticString) throws(NormalizeError) {
        let n = word.utf8CodeUnitCount
        guard i + n <= count else {
            i = count
            throw failure("'\(word)'")
        }
        for k in 0..<n where base[i + k] != word.utf8Start[k] { throw failure("'\(word)'") }
        i += n
    }

    /// Skips a number in JSON's grammar.
    mutating func skipNumber() throws(NormalizeError) {
        if base[i] == UInt8(ascii: "-") { i += 1 }
        guard skipDigits() > 0 else { throw failure("a digit") }
        if i < count, base[i] == UInt8(ascii: ".") {
            i += 1
            guard skipDigits() > 0 else { throw failure("a digit after '.'") }
        }
        if i < count, base[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < count, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
            guard skipDigits() > 0 else { throw failure("an exponent") }
        }
    }

    /// Skips decimal digits; returns how many.
    mutating func skipDigits() -> Int {
        let start = i
        while i < count, base[i] &- UInt8(ascii: "0") < 10 { i += 1 }
        return i - start
    }
}
