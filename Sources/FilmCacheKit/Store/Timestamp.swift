import CivilDays
import Foundation

/// The one text form of instants in the cache database: ISO-8601 UTC to the second, `2026-11-21T02:54:22Z`.
///
/// A fixed-width form sorts lexicographically in time order, so SQL compares it
/// directly and SQLite's date functions read it.
package enum Timestamp {
    /// Formats `date` (seconds truncated toward the past), by the days-from-civil algorithm, no formatter.
    package static func format(_ date: Date) -> String {
        let (year, month, day, time) = civil(date)
        if (0...9999).contains(year) {
            // Every stored instant: its 20 bytes written in place, one allocation.
            return String(unsafeUninitializedCapacity: 20) { out in
                func digits(_ value: Int, _ count: Int, at offset: Int) {
                    var value = value
                    for index in (offset..<(offset + count)).reversed() {
                        out[index] = UInt8(ascii: "0") + UInt8(value % 10)
                        value /= 10
                    }
                }
                digits(year, 4, at: 0)
                out[4] = UInt8(ascii: "-")
                digits(month, 2, at: 5)
                out[7] = UInt8(ascii: "-")
                digits(day, 2, at: 8)
                out[10] = UInt8(ascii: "T")
                digits(time / 3600, 2, at: 11)
                out[13] = UInt8(ascii: ":")
                digits(time / 60 % 60, 2, at: 14)
                out[16] = UInt8(ascii: ":")
                digits(time % 60, 2, at: 17)
                out[19] = UInt8(ascii: "Z")
                return 20
            }
        }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let date = CalendarDate(year: year, month: month, day: day).description
        return "\(date)T\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60))Z"
    }

    /// The UTC calendar day of `date` and the seconds since its midnight (seconds truncated toward
    /// the past), by the days-from-civil algorithm: no calendar, no time zone.
    package static func civil(_ date: Date) -> (year: Int, month: Int, day: Int, seconds: Int) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (year, month, day) = CivilDays.date(days: days)
        return (year, month, day, seconds - days * 86_400)
    }

    /// Midnight UTC of a calendar day, by the inverse days-from-civil algorithm (no Calendar).
    static func midnight(year: Int, month: Int, day: Int) -> Date {
        Date(timeIntervalSince1970: Double(CivilDays.days(year: year, month: month, day: day)) * 86_400)
    }

    /// Parses the form `format` writes; `nil` for anything else.
    package static func parse(_ text: String) -> Date? {
        text.utf8.withContiguousStorageIfAvailable { parse(utf8: $0) }
            ?? Array(text.utf8).withUnsafeBufferPointer { parse(utf8: $0) }
    }

    /// ``parse(_:)`` of the text's bytes, read in place: the planner reads two a cached film
    /// straight from SQLite's row, with no `String` made for either.
    package static func parse(utf8: UnsafeBufferPointer<UInt8>) -> Date? {
        guard utf8.count == 20, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"),
            utf8[10] == UInt8(ascii: "T"), utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":"),
            utf8[19] == UInt8(ascii: "Z")
        else { return nil }
        guard let year = digits(utf8, 0..<4), let month = digits(utf8, 5..<7), let day = digits(utf8, 8..<10),
            let hour = digits(utf8, 11..<13), let minute = digits(utf8, 14..<16), let second = digits(utf8, 17..<19)
        else { return nil }
        // Days-from-civil arithmetic, linear in the day and the time as `timegm` normalizes them
        // (a 31st of a 30-day month is the next month's 1st); a month out of 1...12 moves into
        // the year before or after, as `timegm` moves it. No time zone is read.
        let (yearsOver, monthIndex) = (month - 1).quotientAndRemainder(dividingBy: 12)
        let (carried, normalized) = monthIndex < 0 ? (yearsOver - 1, monthIndex + 12) : (yearsOver, monthIndex)
        let days = CivilDays.days(year: year + carried, month: normalized + 1, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
