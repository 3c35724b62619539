extension Timestamp {
    /// Whether `bytes` are an instant exactly as ``format(_:)`` writes one, every field in range: then
    /// ``parse(_:)`` reads it, and formatting what it read gives the same bytes.
    package static func isWrittenForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 20, bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z"),
            isDayForm(UnsafeBufferPointer(rebasing: bytes[0..<10])), let hour = digits(bytes, 11..<13),
            let minute = digits(bytes, 14..<16), let second = digits(bytes, 17..<19)
        else { return false }
        return hour < 24 && minute < 60 && second < 60
    }

    /// Whether `bytes` are a day that exists, exactly as `CalendarDate.description` writes it (`2001-01-12`).
    package static func isDayForm(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = digits(bytes, 0..<4), let month = digits(bytes, 5..<7), let day = digits(bytes, 8..<10)
        else { return false }
        return CalendarDate.isValid(year: year, month: month, day: day)
    }

    /// The decimal number `bytes[range]` spells, `nil` unless all are digits.
    static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            let byte = bytes[index]
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}
