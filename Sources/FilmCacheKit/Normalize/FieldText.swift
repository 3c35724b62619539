/// Byte-level readers for the grammars inside OMDb's string values.
///
/// They work on UTF-8 bytes because Foundation's formatters and `Character`-based string
/// handling would cost more than the whole JSON read; each returns `nil` (or a reason)
/// rather than guessing, so the caller can warn.
enum FieldText {
    /// Bytes of `text`, without copying when the string is already contiguous UTF-8.
    @inline(__always)
    static func withBytes<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable(body)!
    }

    /// Whether OMDb means "no value": empty, blank or `N/A`.
    static func isAbsent(_ text: String) -> Bool {
        withBytes(text) { b in
            let r = trimmed(b, 0..<b.count)
            return r.isEmpty || isNA(b, r)
        }
    }

    /// `range` without leading and trailing ASCII whitespace.
    @inline(__always)
    static func trimmed(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lo = range.lowerBound
        var hi = range.upperBound
        while lo < hi, isSpace(b[lo]) { lo += 1 }
        while hi > lo, isSpace(b[hi - 1]) { hi -= 1 }
        return lo..<hi
    }

    @inline(__always)
    /// Whether `c` is JSON whitespace.
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// Whether `range` spells `N/A`, in any case.
    @inline(__always)
    static func isNA(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        range.count == 3 && b[range.lowerBound] | 0x20 == UInt8(ascii: "n")
            && b[range.lowerBound + 1] == UInt8(ascii: "/")
            && b[range.lowerBound + 2] | 0x20 == UInt8(ascii: "a")
    }

    /// The text of `range` as a `String`.
    @inline(__always)
    static func string(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: b[range]), as: UTF8.self)
    }

    /// Whether `range` spells `word` exactly.
    @inline(__always)
    static func equals(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        let w = word.utf8Start
        for (offset, k) in range.enumerated() where b[k] != w[offset] { return false }
        return true
    }

    /// Whether `range` spells the lower-case ASCII `word` in any case.
    @inline(__always)
    static func equalsFolded(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        let w = word.utf8Start
        for (offset, k) in range.enumerated() where b[k] | 0x20 != w[offset] { return false }
        return true
    }

    @inline(__always)
    private static func digit(_ c: UInt8) -> Int? {
        let d = c &- UInt8(ascii: "0")
        return d < 10 ? Int(d) : nil
    }

    // MARK: - Numbers

    /// A non-negative integer with optional `,` thousands separators and, if allowed, a leading `$`.
    static func integer(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, dollar: Bool = false) -> Int? {
        var k = range.lowerBound
        if dollar, k < range.upperBound, b[k] == UInt8(ascii: "$") { k += 1 }
        var value = 0
        var digits = 0
        var lastWasComma = false
        while k < range.upperBound {
            let c = b[k]
            if let d = digit(c) {
                guard digits < 18 else { return nil }
                value = value * 10 + d
                digits += 1
                lastWasComma = false
            } else if c == UInt8(ascii: ","), digits > 0, !lastWasComma {
                lastWasComma = true
            } else {
                return nil
            }
            k += 1
        }
        return digits > 0 && !lastWasComma ? value : nil
    }

    /// A decimal like `7.9` as `mantissa / scale` (scale a power of ten), kept exact for scoring.
    static func decimal(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> (mantissa: Int, scale: Int)? {
        var k = range.lowerBound
        var mantissa = 0
        var scale = 1
        var intDigits = 0
        var fracDigits = 0
        while k < range.upperBound, let d = digit(b[k]) {
            guard intDigits < 9 else { return nil }
            mantissa = mantissa * 10 + d
            intDigits += 1
            k += 1
        }
        if k < range.upperBound, b[k] == UInt8(ascii: ".") {
            k += 1
            while k < range.upperBound, let d = digit(b[k]) {
                guard fracDigits < 6 else { return nil }
                mantissa = mantissa * 10 + d
                scale *= 10
                fracDigits += 1
                k += 1
            }
            guard fracDigits > 0 else { return nil }
        }
        return intDigits > 0 && k == range.upperBound ? (mantissa, scale) : nil
    }

    /// A rating value on a 0–100 scale: `7.9/10` → 79, `98%` → 98, `94/100` → 94, rounded half up.
    static func ratingScore(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty else { return nil }
        var score: Int
        if b[range.upperBound - 1] == UInt8(ascii: "%") {
            let number = trimmed(b, range.lowerBound..<(range.upperBound - 1))
            guard let (m, s) = decimal(b, number) else { return nil }
            score = (2 * m + s) / (2 * s)
        } else {
            guard let slash = range.firstIndex(where: { b[$0] == UInt8(ascii: "/") }),
                let (m1, s1) = decimal(b, trimmed(b, range.lowerBound..<slash)),
                let (m2, s2) = decimal(b, trimmed(b, (slash + 1)..<range.upperBound)), m2 > 0
            else { return nil }
            let numerator = 100 * m1 * s2
            let denominator = s1 * m2
            score = (2 * numerator + denominator) / (2 * denominator)
        }
        return (0...100).contains(score) ? score : nil
    }

    // MARK: - Years, dates, runtimes

    /// Why a `Year` could not be read.
    enum YearReading {
        case years(start: Int, end: Int?)
        case unreadable
        case endsBeforeStart(start: Int)
    }

    /// `2000`, `2011–2019`, `1999–` (EN DASH, EM DASH or hyphen, spaces allowed around it).
    static func year(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> YearReading {
        var k = range.lowerBound
        guard let start = fourDigits(b, &k, range.upperBound) else { return .unreadable }
        while k < range.upperBound, isSpace(b[k]) { k += 1 }
        if k == range.upperBound { return .years(start: start, end: nil) }
        if b[k] == UInt8(ascii: "-") {
            k += 1
        } else if k + 2 < range.upperBound, b[k] == 0xE2, b[k + 1] == 0x80, b[k + 2] == 0x93 || b[k + 2] == 0x94 {
            k += 3
        } else {
            return .unreadable
        }
        while k < range.upperBound, isSpace(b[k]) { k += 1 }
        if k == range.upperBound { return .years(start: start, end: nil) }
        guard let end = fourDigits(b, &k, range.upperBound), k == range.upperBound else { return .unreadable }
        return end >= start ? .years(start: start, end: end) : .endsBeforeStart(start: start)
    }

    private static func fourDigits(_ b: UnsafeBufferPointer<UInt8>, _ k: inout Int, _ end: Int) -> Int? {
        guard k + 4 <= end else { return nil }
        var value = 0
        for offset in 0..<4 {
            guard let d = digit(b[k + offset]) else { return nil }
            value = value * 10 + d
        }
        k += 4
        guard k == end || digit(b[k]) == nil else { return nil }
        return value
    }

    /// What a date field held.
    enum DateReading: Equatable {
        case date(CalendarDate)
        /// Well formed, but the day does not exist (`31 Feb 2001`).
        case impossible
        case unreadable
    }

    /// `12 Jan 2001` (OMDb's form; full month names too) or ISO `2001-01-12`.
    static func date(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> DateReading {
        var k = range.lowerBound
        let end = range.upperBound
        let first = number(b, &k, end, maxDigits: 4)
        guard let first else { return .unreadable }
        if k < end, b[k] == UInt8(ascii: "-") {
            guard first.digits == 4 else { return .unreadable }
            k += 1
            guard let month = number(b, &k, end, maxDigits: 2), k < end, b[k] == UInt8(ascii: "-") else {
                return .unreadable
            }
            k += 1
            guard let day = number(b, &k, end, maxDigits: 2), k == end else { return .unreadable }
            return checked(year: first.value, month: month.value, day: day.value)
        }
        guard first.digits <= 2 else { return .unreadable }
        let spaceBeforeMonth = k
        while k < end, isSpace(b[k]) { k += 1 }
        guard k > spaceBeforeMonth else { return .unreadable }
        let nameStart = k
        while k < end, (b[k] | 0x20) &- UInt8(ascii: "a") < 26 { k += 1 }
        guard let month = monthNumber(b, nameStart..<k) else { return .unreadable }
        let spaceBeforeYear = k
        while k < end, isSpace(b[k]) { k += 1 }
        guard k > spaceBeforeYear, let year = number(b, &k, end, maxDigits: 4), year.digits == 4, k == end else {
            return .unreadable
        }
        return checked(year: year.value, month: month, day: first.value)
    }

    private static func checked(year: Int, month: Int, day: Int) -> DateReading {
        CalendarDate.isValid(year: year, month: month, day: day)
            ? .date(CalendarDate(year: year, month: month, day: day)) : .impossible
    }

    private static func number(
        _ b: UnsafeBufferPointer<UInt8>, _ k: inout Int, _ end: Int, maxDigits: Int
    ) -> (value: Int, digits: Int)? {
        var value = 0
        var digits = 0
        while k < end, let d = digit(b[k]) {
            guard digits < maxDigits else { return nil }
            value = value * 10 + d
            digits += 1
            k += 1
        }
        return digits > 0 ? (value, digits) : nil
    }

    private static let monthNames: [[UInt8]] = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
        "november", "december",
    ].map { Array($0.utf8) }

    /// 1–12 for a three-letter or full English month name, any case.
    private static func monthNumber(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard range.count >= 3 else { return nil }
        outer: for (index, name) in monthNames.enumerated() where range.count == 3 || range.count == name.count {
            for (offset, k) in range.enumerated() where b[k] | 0x20 != name[offset] { continue outer }
            return index + 1
        }
        return nil
    }

    /// Minutes in `120 min`, `1 h 50 min`, `2 h` (also `hr`, `hours`, `mins`, `minutes`, no spaces).
    static func runtime(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var k = range.lowerBound
        let end = range.upperBound
        var total = 0
        var parts = 0
        while k < end {
            while k < end, isSpace(b[k]) { k += 1 }
            if k == end { break }
            let numberStart = k
            while k < end, digit(b[k]) != nil || b[k] == UInt8(ascii: ",") { k += 1 }
            guard let amount = integer(b, numberStart..<k), amount < 1_000_000 else { return nil }
            while k < end, isSpace(b[k]) { k += 1 }
            let unitStart = k
            while k < end, (b[k] | 0x20) &- UInt8(ascii: "a") < 26 || b[k] == UInt8(ascii: ".") { k += 1 }
            switch unit(b, unitStart..<k) {
            case .hours: total += amount * 60
            case .minutes: total += amount
            case nil: return nil
            }
            parts += 1
        }
        return parts > 0 ? total : nil
    }

    private enum RuntimeUnit { case hours, minutes }

    private static let hourUnits: [[UInt8]] = ["h", "h.", "hr", "hr.", "hrs", "hour", "hours"].map { Array($0.utf8) }
    private static let minuteUnits: [[UInt8]] = ["m", "min", "min.", "mins", "minute", "minutes"].map { Array($0.utf8) }

    private static func unit(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> RuntimeUnit? {
        func matches(_ name: [UInt8]) -> Bool {
            name.count == range.count && zip(name, range).allSatisfy { $0 == b[$1] | 0x20 }
        }
        if minuteUnits.contains(where: matches) { return .minutes }
        if hourUnits.contains(where: matches) { return .hours }
        return nil
    }

    // MARK: - Lists

    /// Calls `body` with each trimmed, non-empty, non-`N/A` item of a comma-separated list.
    ///
    /// Commas inside parentheses do not split, so `Jane Doe (story, screenplay)` stays one credit.
    static func forEachItem(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ body: (Range<Int>) -> Void) {
        var depth = 0
        var itemStart = range.lowerBound
        var k = range.lowerBound
        while k <= range.upperBound {
            let atEnd = k == range.upperBound
            let c: UInt8 = atEnd ? UInt8(ascii: ",") : b[k]
            if c == UInt8(ascii: "(") {
                depth += 1
            } else if c == UInt8(ascii: ")") {
                depth = max(0, depth - 1)
            } else if c == UInt8(ascii: ","), depth == 0 || atEnd {
                let item = trimmed(b, itemStart..<k)
                if !item.isEmpty, !isNA(b, item) { body(item) }
                itemStart = k + 1
            }
            k += 1
        }
    }
}
