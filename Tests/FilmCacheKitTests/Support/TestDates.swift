import FilmCacheKit
import Foundation

/// Calendar instants for tests, built through Foundation's calendar rather than the code under test.
enum TestDates {
    /// The instant of a UTC wall time.
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0)
        -> Date
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let parts = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return calendar.date(from: parts)!
    }

    /// A quota zone by its IANA name.
    static func zone(_ identifier: String) -> QuotaZone {
        QuotaZone(identifier: identifier)!
    }
}
