import Foundation
import Testing

@testable import FilmCacheKit

extension FetchPolicyTests {
    /// Quota days in UTC and in zones with daylight saving.
    @Suite("QuotaDay")
    struct QuotaDayTests {
        /// A zone with both daylight-saving switches.
        static let newYork = TestDates.zone("America/New_York")

        @Test("a UTC day runs from midnight to midnight")
        func utcDay() {
            let day = QuotaDay(containing: TestDates.utc(2026, 11, 21, 13, 45, 0))
            #expect(day.key == "2026-11-21")
            #expect(day.date == CalendarDate(year: 2026, month: 11, day: 21))
            #expect(day.start == TestDates.utc(2026, 11, 21))
            #expect(day.nextReset == TestDates.utc(2026, 11, 22))
            #expect(day.length == .seconds(86_400))
            #expect(day.description == "2026-11-21")
        }

        @Test("midnight belongs to the new day, the second before to the old one")
        func boundaries() {
            #expect(QuotaDay(containing: TestDates.utc(2026, 11, 22)).key == "2026-11-22")
            #expect(QuotaDay(containing: TestDates.utc(2026, 11, 21, 23, 59, 59)).key == "2026-11-21")
            let day = QuotaDay(containing: TestDates.utc(2026, 11, 21, 12))
            #expect(day.contains(day.start))
            #expect(!day.contains(day.nextReset))
            #expect(day.contains(day.nextReset.addingTimeInterval(-0.001)))
        }

        @Test("the year rolls over in UTC")
        func yearBoundaryUTC() {
            let day = QuotaDay(containing: TestDates.utc(2026, 12, 31, 23, 59, 59))
            #expect(day.key == "2026-12-31")
            #expect(day.nextReset == TestDates.utc(2027, 1, 1))
            #expect(day.next.key == "2027-01-01")
            #expect(day.next.start == day.nextReset)
            #expect(day < day.next)
        }

        @Test("the year rolls over at New York's midnight, not UTC's")
        func yearBoundaryNewYork() {
            let lastEvening = QuotaDay(containing: TestDates.utc(2027, 1, 1, 4, 59, 59), in: Self.newYork)
            #expect(lastEvening.key == "2026-12-31")
            #expect(lastEvening.start == TestDates.utc(2026, 12, 31, 5))
            #expect(lastEvening.nextReset == TestDates.utc(2027, 1, 1, 5))
            #expect(QuotaDay(containing: TestDates.utc(2027, 1, 1, 5), in: Self.newYork).key == "2027-01-01")
        }

        @Test("the spring-forward day in New York lasts 23 hours")
        func springForward() {
            let day = QuotaDay(containing: TestDates.utc(2026, 3, 8, 12), in: Self.newYork)
            #expect(day.key == "2026-03-08")
            #expect(day.start == TestDates.utc(2026, 3, 8, 5))
            #expect(day.nextReset == TestDates.utc(2026, 3, 9, 4))
            #expect(day.length == .seconds(23 * 3_600))
            // 01:59:59 EST and 03:00:00 EDT are one second apart and on the same day.
            #expect(QuotaDay(containing: TestDates.utc(2026, 3, 8, 6, 59, 59), in: Self.newYork) == day)
            #expect(QuotaDay(containing: TestDates.utc(2026, 3, 8, 7), in: Self.newYork) == day)
        }

        @Test("the fall-back day in New York lasts 25 hours, the repeated hour included")
        func fallBack() {
            let day = QuotaDay(containing: TestDates.utc(2026, 11, 1, 12), in: Self.newYork)
            #expect(day.key == "2026-11-01")
            #expect(day.start == TestDates.utc(2026, 11, 1, 4))
            #expect(day.nextReset == TestDates.utc(2026, 11, 2, 5))
            #expect(day.length == .seconds(25 * 3_600))
            // 01:30 happens twice: 05:30Z (EDT) and 06:30Z (EST).
            #expect(QuotaDay(containing: TestDates.utc(2026, 11, 1, 5, 30), in: Self.newYork) == day)
            #expect(QuotaDay(containing: TestDates.utc(2026, 11, 1, 6, 30), in: Self.newYork) == day)
            #expect(QuotaDay(containing: TestDates.utc(2026, 11, 2, 4, 59, 59), in: Self.newYork) == day)
        }

        @Test("leap day 2028-02-29 exists and is followed by March 1st")
        func leapDay() throws {
            let day = try #require(QuotaDay(key: "2028-02-29"))
            #expect(day.next.key == "2028-03-01")
            #expect(day.start == TestDates.utc(2028, 2, 29))
        }

        @Test("keys round-trip; impossible or malformed keys do not parse")
        func keys() throws {
            let day = try #require(QuotaDay(key: "2026-03-08", in: Self.newYork))
            #expect(day.start == TestDates.utc(2026, 3, 8, 5))
            #expect(day == QuotaDay(containing: day.start, in: Self.newYork))
            #expect(
                QuotaDay(date: CalendarDate(year: 2026, month: 11, day: 1), in: Self.newYork)
                    == QuotaDay(key: "2026-11-01", in: Self.newYork))
            for bad in ["2026-02-29", "2026-13-01", "2026-1-01", "garbage", ""] {
                #expect(QuotaDay(key: bad) == nil, "\(bad)")
            }
        }

        @Test(
            "a whole year of days is contiguous, and only switch days differ from 24 hours",
            arguments: [
                "UTC", "America/New_York", "Europe/Berlin", "Australia/Sydney", "America/Santiago", "Asia/Kolkata",
            ])
        func contiguousYear(zoneName: String) throws {
            let zone = TestDates.zone(zoneName)
            var day = try #require(QuotaDay(key: "2026-01-01", in: zone))
            var unusual = 0
            for _ in 0..<366 {
                let next = day.next
                #expect(next.start == day.nextReset)
                #expect(next.date > day.date)
                #expect(day.contains(day.start) && !day.contains(day.nextReset))
                #expect([23, 24, 25].map { Duration.seconds($0 * 3_600) }.contains(day.length), "\(day.key)")
                if day.length != .seconds(86_400) { unusual += 1 }
                day = next
            }
            #expect(day.key == "2027-01-02")
            #expect(unusual == (["UTC", "Asia/Kolkata"].contains(zoneName) ? 0 : 2))
        }

        @Test("A quota zone is UTC by any of UTC's names, another zone by the system's database, or unknown")
        func quotaZoneNames() throws {
            for name in ["UTC", "GMT", "Etc/UTC", "Etc/GMT"] {
                let zone = try #require(QuotaZone(identifier: name))
                #expect(zone.isUTC && zone.identifier == name && zone.name == "UTC")
                #expect(zone.timeZone.secondsFromGMT(for: TestDates.utc(2026, 7, 1)) == 0)
            }
            let losAngeles = try #require(QuotaZone(identifier: "America/Los_Angeles"))
            #expect(!losAngeles.isUTC && losAngeles.name == "America/Los_Angeles")
            #expect(losAngeles == QuotaZone(TimeZone(identifier: "America/Los_Angeles")!))
            #expect(losAngeles != .utc && QuotaZone(identifier: "UTC") == .utc)
            #expect(QuotaZone(identifier: "Mars/Olympus_Mons") == nil)
            #expect(QuotaZone(identifier: "") == nil)
            // A day of each: UTC's is 24 hours from its midnight, Los Angeles' from its own.
            let instant = TestDates.utc(2026, 11, 21, 3)
            #expect(QuotaDay(containing: instant, in: .utc).start == TestDates.utc(2026, 11, 21))
            #expect(QuotaDay(containing: instant, in: losAngeles).start == TestDates.utc(2026, 11, 20, 8))
            #expect(QuotaDay(containing: instant, in: losAngeles).key == "2026-11-20")
        }

        /// UTC's days are counted without a calendar; Africa/Abidjan has been UTC all year since 1912
        /// under another name, so its days come from the calendar, and the two must agree to the second
        /// (instants from 1916 to 2460).
        @Test("UTC's days, counted without a calendar, are the calendar's days", arguments: ["GMT", "UTC", "Etc/UTC"])
        func utcWithoutCalendar(zoneName: String) throws {
            // GMT as `TimeZone(secondsFromGMT: 0)` names it; UTC and Etc/UTC by name, no `TimeZone` made.
            let zone =
                zoneName == "GMT"
                ? QuotaZone(TimeZone(secondsFromGMT: 0)!) : try #require(QuotaZone(identifier: zoneName))
            #expect(zone.isUTC && zone.identifier == zoneName && zone.name == "UTC")
            let calendarUTC = TestDates.zone("Africa/Abidjan")
            #expect(!calendarUTC.isUTC && calendarUTC.name == "Africa/Abidjan")
            // Midnights, the second before, leap days, century years, instants before 1970.
            var instants = [
                TestDates.utc(2026, 11, 21), TestDates.utc(2026, 11, 20, 23, 59, 59), TestDates.utc(2028, 2, 29, 12),
                TestDates.utc(2100, 3, 1), TestDates.utc(2000, 2, 29, 23, 59, 59),
                TestDates.utc(1969, 12, 31, 23, 59, 59),
                TestDates.utc(1970, 1, 1), TestDates.utc(1920, 3, 1, 0, 0, 1), Date(timeIntervalSince1970: -0.5),
                TestDates.utc(2026, 11, 21).addingTimeInterval(-0.001),
            ]
            var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
            for _ in 0..<2_000 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                instants.append(Date(timeIntervalSince1970: Double(seed >> 30) - 1_700_000_000))
            }
            for instant in instants {
                let fast = QuotaDay(containing: instant, in: zone)
                let calendar = QuotaDay(containing: instant, in: calendarUTC)
                #expect(fast.date == calendar.date, "\(instant)")
                #expect(fast.start == calendar.start && fast.nextReset == calendar.nextReset, "\(instant)")
                #expect(QuotaDay(date: fast.date, in: zone)?.start == calendar.start, "\(instant)")
                #expect(ReportTime.day(instant, in: zone) == ReportTime.day(instant, in: calendarUTC), "\(instant)")
                #expect(
                    ReportTime.timeOfDay(instant, in: zone) == ReportTime.timeOfDay(instant, in: calendarUTC),
                    "\(instant)")
            }
            #expect(QuotaDay(key: "2026-02-29", in: zone) == nil)
        }
    }
}
