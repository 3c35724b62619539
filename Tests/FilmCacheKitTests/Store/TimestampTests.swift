import Foundation
import Testing

@testable import FilmCacheKit

/// The stored form of an instant: `YYYY-MM-DDTHH:MM:SSZ`, seconds truncated toward the past.
@Suite struct TimestampTests {
    @Test func fixedInstantsAreWrittenInTheStoredForm() {
        #expect(Timestamp.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_795_000_000.9)) == "2026-11-18T11:06:40Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00Z")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 253_402_300_799)) == "9999-12-31T23:59:59Z")
    }

    @Test func randomInstantsAgreeWithFoundationsISO8601AndReadBack() {
        let iso = ISO8601DateFormatter()
        iso.timeZone = TimeZone(identifier: "UTC")
        var seed: UInt64 = 0x1234_5678_9ABC_DEF1
        func next(_ bound: Int64) -> Int64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int64((seed >> 11) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            // 1970 to 2200, where Foundation's calendar is the same proleptic Gregorian one.
            let seconds = Double(next(7_258_118_400)) + Double(next(1_000)) / 1_000
            let date = Date(timeIntervalSince1970: seconds)
            let text = Timestamp.format(date)
            #expect(text == iso.string(from: date), "\(seconds)")
            #expect(Timestamp.parse(text) == Date(timeIntervalSince1970: seconds.rounded(.down)), "\(seconds)")
        }
        for _ in 0..<20_000 {
            // Years 1 to 9999 read back as the same second.
            let seconds = Double(next(315_537_897_600) - 62_135_596_800)
            let text = Timestamp.format(Date(timeIntervalSince1970: seconds))
            #expect(text.utf8.count == 20, "\(seconds)")
            #expect(Timestamp.parse(text) == Date(timeIntervalSince1970: seconds), "\(text)")
        }
    }

    @Test func malformedInstantsDoNotParse() {
        for bad in [
            "", "2026-11-21T12:00:00", "2026-11-21T12:00:00+00:00", "2026-11-21 12:00:00Z", "+026-11-21T12:00:00Z",
            "2026-1a-21T12:00:00Z", "2026-11-21T12:00:0Z", "２026-11-21T12:00:00Z", "2026-11x21T12:00:00Z",
            "2026-11-21T12x00:00Z", "2026-11-21T12:00x00Z", "2026/11/21T12:00:00Z",
        ] {
            #expect(Timestamp.parse(bad) == nil, "\(bad)")
        }
        // A string cut from a longer one.
        let line = "at 2026-11-21T12:00:00Z."
        let text = String(line.dropFirst(3).dropLast())
        #expect(Timestamp.parse(text) == Date(timeIntervalSince1970: 1_795_262_400))
    }

    /// Fields past their range read as `timegm` normalizes them: a 31st of November is the 1st
    /// of December, a 13th month the next year's first. `timegm` is the reference (the tests run
    /// with no leap-second zone); the parse itself reads no time zone.
    @Test func fieldsPastTheirRangeReadAsTimegmNormalizesThem() {
        #expect(Timestamp.parse("2026-11-31T00:00:00Z") == Timestamp.parse("2026-12-01T00:00:00Z"))
        #expect(Timestamp.parse("2026-12-31T24:00:60Z") == Timestamp.parse("2027-01-01T00:01:00Z"))
        #expect(Timestamp.parse("2026-13-01T00:00:00Z") == Timestamp.parse("2027-01-01T00:00:00Z"))
        #expect(Timestamp.parse("2026-00-10T00:00:00Z") == Timestamp.parse("2025-12-10T00:00:00Z"))
        var seed: UInt64 = 0xF11D_CAC4
        func next(_ bound: UInt64) -> Int32 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int32((seed >> 20) % bound)
        }
        for sample in 0..<6_000 {
            // Five in six inside 1...12 (the arithmetic alone), the rest any two digits.
            let month = sample % 6 == 0 ? next(100) : next(12) + 1
            let (year, day, hour, minute, second) = (next(10_000), next(100), next(100), next(100), next(100))
            var parts = tm()
            (parts.tm_year, parts.tm_mon, parts.tm_mday) = (year - 1900, month - 1, day)
            (parts.tm_hour, parts.tm_min, parts.tm_sec) = (hour, minute, second)
            let expected = Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
            func digits(_ n: Int32, _ count: Int) -> String {
                String(repeating: "0", count: count - String(n).count) + String(n)
            }
            let text =
                "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))T"
                + "\(digits(hour, 2)):\(digits(minute, 2)):\(digits(second, 2))Z"
            #expect(Timestamp.parse(text) == expected, "\(text)")
        }
    }

    /// `released` and quota day keys: `YYYY-MM-DD`, digits only, a day that exists.
    @Test func calendarDatesParseOnlyTheISOForm() {
        #expect(CalendarDate(iso: "2026-11-21") == CalendarDate(year: 2026, month: 11, day: 21))
        #expect(CalendarDate(iso: "0001-01-01") == CalendarDate(year: 1, month: 1, day: 1))
        #expect(CalendarDate(iso: "2028-02-29") == CalendarDate(year: 2028, month: 2, day: 29))
        #expect(CalendarDate(iso: "released 1999-12-31".dropFirst(9)) == CalendarDate(year: 1999, month: 12, day: 31))
        for bad in [
            "", "2026-11-2", "2026-11-211", "2026/11/21", "+999-01-01", "2026-+1-21", "2026-11--1", "2026-02-29",
            "2026-13-01", "2026-00-10", "0000-01-01", "2026-11-2x", "2026-１1-21", "20261-1-21",
        ] {
            #expect(CalendarDate(iso: bad) == nil, "\(bad)")
        }
        var seed: UInt64 = 7
        for _ in 0..<5_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let (year, month, day) = (Int(seed >> 40) % 9_999 + 1, Int(seed >> 20) % 12 + 1, Int(seed >> 8) % 28 + 1)
            let date = CalendarDate(year: year, month: month, day: day)
            #expect(CalendarDate(iso: date.description) == date, "\(date)")
        }
    }
}
