import Foundation

/// Parses the HTTP date formats (RFC 9110 §5.6.7) and writes IMF-fixdate, without `DateFormatter` or locales.
public enum HTTPDate {
    /// Parses IMF-fixdate, RFC 850 or asctime form; `nil` for anything else.
    public static func parse(_ text: String) -> Date? {
        let tokens = text.split(separator: " ", omittingEmptySubsequences: true)
        switch tokens.count {
        case 6:
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard tokens[0].hasSuffix(","), isDayName(tokens[0].dropLast(), long: false), tokens[5] == "GMT",
                tokens[1].count == 2, tokens[3].count == 4,
                let day = Int(tokens[1]), let month = month(tokens[2]), let year = Int(tokens[3])
            else { return nil }
            return make(year: year, month: month, day: day, time: tokens[4])
        case 4:
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            guard tokens[0].hasSuffix(","), isDayName(tokens[0].dropLast(), long: true), tokens[3] == "GMT"
            else { return nil }
            let parts = tokens[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 2, parts[2].count == 2,
                let day = Int(parts[0]), let month = month(parts[1]), let shortYear = Int(parts[2])
            else { return nil }
            // Two-digit years: 70...99 are 19xx, 00...69 are 20xx.
            let year = shortYear >= 70 ? 1900 + shortYear : 2000 + shortYear
            return make(year: year, month: month, day: day, time: tokens[2])
        case 5:
            // asctime: Sun Nov  6 08:49:37 1994
            guard isDayName(tokens[0], long: false), tokens[2].count <= 2, tokens[4].count == 4,
                let month = month(tokens[1]), let day = Int(tokens[2]), let year = Int(tokens[4])
            else { return nil }
            return make(year: year, month: month, day: day, time: tokens[3])
        default:
            return nil
        }
    }

    /// `instant`'s whole second as IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ instant: Date) -> String {
        format(secondsSince1970: Int(instant.timeIntervalSince1970.rounded(.down)))
    }

    /// The second `seconds` after 1970-01-01T00:00:00Z as IMF-fixdate.
    public static func format(secondsSince1970 seconds: Int) -> String {
        var moment = time_t(seconds)
        var parts = tm()
        gmtime_r(&moment, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let weekday = shortDays[(Int(parts.tm_wday) + 6) % 7].capitalized
        let month = months[Int(parts.tm_mon)].capitalized
        return "\(weekday), \(two(parts.tm_mday)) \(month) \(1900 + parts.tm_year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func isDayName(_ token: Substring, long: Bool) -> Bool {
        (long ? longDays : shortDays).contains(token.lowercased())
    }

    private static func month(_ token: Substring) -> Int? {
        months.firstIndex(of: token.lowercased()).map { $0 + 1 }
    }

    private static func make(year: Int, month: Int, day: Int, time: Substring) -> Date? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            CalendarDate.isValid(year: year, month: month, day: day)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
