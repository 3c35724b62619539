/// Reads OMDb's flat JSON (one object of strings plus a `Ratings` list of flat objects) straight from bytes.
///
/// A generic JSON tree costs two to three times as much as the whole normalization, so this
/// reader fills an `IMDBFilmDTO` in one pass. It still accepts any valid JSON: a value of
/// an unexpected shape is validated, skipped and recorded as a `WireAnomaly`; only bytes
/// that are not JSON at all throw.
struct OMDbJSONReader {
    /// Start of the body.
    let base: UnsafePointer<UInt8>
    /// Length of the body in bytes.
    let count: Int
    /// Offset of the next byte to read.
    var i = 0
    /// Reused buffer for strings with escapes, so only the rare escaped string allocates.
    var scratch: [UInt8] = []

    /// Deeper nesting than this is not OMDb and is refused rather than recursed into.
    static let maxDepth = 64

    /// Reads one body and hands what it found, with the body's bytes, to `use`.
    ///
    /// Throws `.malformedJSON` when the body is not a JSON object with a `Response`.
    static func read<R>(
        _ body: [UInt8], _ use: (RawOutcome, UnsafeBufferPointer<UInt8>) -> R
    ) throws(NormalizeError) -> R {
        let result = body.withUnsafeBufferPointer { buffer -> Result<R, NormalizeError> in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return .failure(.malformedJSON("empty body")) }
            var reader = OMDbJSONReader(base: base, count: buffer.count)
            do throws(NormalizeError) {
                return .success(use(try reader.readBody(), buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    // MARK: - Top level

    /// Reads the top-level object and decides between film and error.
    mutating func readBody() throws(NormalizeError) -> RawOutcome {
        var dto = RawBody()
        var seen: UInt64 = 0
        var guess: OMDbKey? = .title
        // A UTF-8 byte order mark is not JSON, but some proxies add one; Python's reader accepts it too.
        if count >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { i = 3 }
        skipSpace()
        guard i < count else { throw .malformedJSON("empty body") }
        guard base[i] == Byte.leftBrace else {
            let kind = try skipValue(depth: 0)
            throw .malformedJSON("top level is \(kind), not an object")
        }
        i += 1
        skipSpace()
        if i < count, base[i] == Byte.rightBrace {
            i += 1
        } else {
            members: while true {
                guard i < count, base[i] == Byte.quote else { throw failure("a key") }
                let key = try readKey(guess: guess)
                skipSpace()
                guard i < count, base[i] == Byte.colon else { throw failure("':' after a key") }
                i += 1
                skipSpace()
                guard i < count else { throw failure("a value") }
                switch key {
                case .known(let k):
                    guess = k.next
                    if seen & (1 << UInt64(k.rawValue)) != 0 {
                        dto.anomalies.append(
                            WireAnomaly(field: k.name, message: "duplicate key; the last value is used"))
                    }
                    seen |= 1 << UInt64(k.rawValue)
                    if k == .ratings {
                        try readRatingsValue(into: &dto)
                    } else if base[i] == Byte.quote {
                        dto.values[k.rawValue] = try readValue(field: k, anomalies: &dto.anomalies)
                    } else {
                        let kind = try skipValue(depth: 0)
                        dto.values[k.rawValue] = .absent
                        dto.anomalies.append(WireAnomaly(field: k.name, message: "expected a string, found \(kind)"))
                    }
                case .unknown(let name):
                    let kind = try skipValue(depth: 0)
                    dto.anomalies.append(WireAnomaly(field: name, message: "unknown field (\(kind)), ignored"))
                }
                skipSpace()
                guard i < count else { throw failure("',' or '}'") }
                switch base[i] {
                case Byte.comma:
                    i += 1
                    skipSpace()
                case Byte.rightBrace:
                    i += 1
                    break members
                default:
                    throw failure("',' or '}'")
                }
            }
        }
        skipSpace()
        guard i == count else { throw .malformedJSON("data after the object at byte \(i)") }
        let buffer = UnsafeBufferPointer(start: base, count: count)
        switch dto[.response].string(in: buffer) {
        case "True": return .film(dto)
        case "False": return .error(dto[.error].string(in: buffer) ?? "")
        case let text?:
            switch text.lowercased() {
            case "true": return .film(dto)
            case "false": return .error(dto[.error].string(in: buffer) ?? "")
            default: throw .malformedJSON("\"Response\" is \"\(text)\", neither True nor False")
            }
        case nil:
            throw .malformedJSON("no \"Response\" string")
        }
    }

    // MARK: - Ratings

    /// Reads the value of `Ratings`, expected to be a list of flat objects.
    mutating func readRatingsValue(into dto: inout RawBody) throws(NormalizeError) {
        dto.ratings = []
        if base[i] == Byte.quote {
            // OMDb never sends this, but "N/A" for the whole list means what it means elsewhere.
            let s = try readString(field: .ratings, anomalies: &dto.anomalies)
            if !FieldText.isAbsent(s) {
                dto.anomalies.append(WireAnomaly(field: "Ratings", message: "expected a list, found string \"\(s)\""))
            }
            return
        }
        guard base[i] == Byte.leftBracket else {
            let kind = try skipValue(depth: 0)
            dto.anomalies.append(WireAnomaly(field: "Ratings", message: "expected a list, found \(kind)"))
            return
        }
        i += 1
        skipSpace()
        if i < count, base[i] == Byte.rightBracket {
            i += 1
            return
        }
        var index = 0
        while true {
            guard i < count else { throw failure("a Ratings entry") }
            if base[i] == Byte.leftBrace {
                try readRatingEntry(index: index, into: &dto)
            } else {
                let kind = try skipValue(depth: 1)
                dto.anomalies.append(
                    WireAnomaly(field: "Ratings", message: "entry \(index + 1) is \(kind), not an object; skipped"))
            }
            index += 1
            skipSpace()
            guard i < count else { throw failure("',' or ']'") }
            switch base[i] {
            case Byte.comma:
                i += 1
                skipSpace()
            case Byte.rightBracket:
                i += 1
                return
            default:
                throw failure("',' or ']'")
            }
        }
    }

    /// Reads one `{Source, Value}` entry; anything else in it is skipped with an anomaly.
    mutating func readRatingEntry(index: Int, into dto: inout RawBody) throws(NormalizeError) {
        i += 1
        skipSpace()
        var source = RawValue.absent
        var value = RawValue.absent
        if i < count, base[i] == Byte.rightBrace {
            i += 1
        } else {
            while true {
                guard i < count, base[i] == Byte.quote else { throw failure("a key") }
                let key = try readPlainKey()
                skipSpace()
                guard i < count, base[i] == Byte.colon else { throw failure("':' after a key") }
                i += 1
                skipSpace()
                guard i < count else { throw failure("a value") }
                let isSource = key == "Source"
                if (isSource || key == "Value") && base[i] == Byte.quote {
                    let v = try readValue(field: .ratings, anomalies: &dto.anomalies)
                    if isSource { source = v } else { value = v }
                } else {
                    let kind = try skipValue(depth: 2)
                    dto.anomalies.append(
                        WireAnomaly(field: "Ratings", message: "entry \(index + 1): \(key) is \(kind), ignored"))
                }
                skipSpace()
                guard i < count else { throw failure("',' or '}'") }
                if base[i] == Byte.comma {
                    i += 1
                    skipSpace()
                } else if base[i] == Byte.rightBrace {
                    i += 1
                    break
                } else {
                    throw failure("',' or '}'")
                }
            }
        }
        switch (source, value) {
        case (.absent, _), (_, .absent):
            dto.anomalies.append(
                WireAnomaly(field: "Ratings", message: "entry \(index + 1) lacks a Source or Value string; skipped"))
        default:
            dto.ratings.append(RawRating(source: source, value: value))
        }
    }

    // MARK: - Helpers

    @inline(__always)
    /// Skips JSON whitespace.
    mutating func skipSpace() {
        while i < count {
            switch base[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    /// A syntax error at `i`, worded for the log line of a failed fetch.
    func failure(_ expected: String) -> NormalizeError {
        if i >= count { return .malformedJSON("truncated: ended at byte \(count) while expecting \(expected)") }
        let b = base[i]
        let shown = b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x\(String(b, radix: 16))"
        return .malformedJSON("expected \(expected) at byte \(i), found \(shown)")
    }
}

/// JSON's structural bytes.
enum Byte {
    /// `"`
    static let quote = UInt8(ascii: "\"")
    /// A backslash.
    static let backslash = UInt8(ascii: "\\")
    /// `/`
    static let slash = UInt8(ascii: "/")
    /// `:`
    static let colon = UInt8(ascii: ":")
    /// `,`
    static let comma = UInt8(ascii: ",")
    /// `{`
    static let leftBrace = UInt8(ascii: "{")
    /// `}`
    static let rightBrace = UInt8(ascii: "}")
    /// `[`
    static let leftBracket = UInt8(ascii: "[")
    /// `]`
    static let rightBracket = UInt8(ascii: "]")
}
