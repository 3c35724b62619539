import Foundation
import Testing

@testable import FilmCacheKit

@Suite struct FreshnessPolicyTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15
    let day = FreshnessPolicy.day

    @Test(
        arguments: [
            ("movie", 2026, nil, "2026-11-01", FreshnessPolicy.AgeClass.recent),
            ("movie", 2027, nil, "2027-06-01", .recent),  // not out yet
            ("movie", 2020, nil, "2020-05-01", .standard),
            ("movie", 2010, nil, "2010-05-01", .old),
            ("movie", 2010, nil, nil, .old),  // no date: January 1 of the year
            ("movie", nil, nil, nil, .standard),  // age unknown
            ("series", 2008, nil, "2008-01-20", .recent),  // still running
            ("series", 2008, 2013, "2008-01-20", .old),  // ended: dated by its last year
            ("series", 2019, 2022, "2019-01-20", .standard),
            ("episode", 2026, nil, "2026-12-25", .recent),
        ] as [(String, Int?, Int?, String?, FreshnessPolicy.AgeClass)])
    func ageClasses(type: String, yearStart: Int?, yearEnd: Int?, released: String?, expected: FreshnessPolicy.AgeClass)
    {
        let title = TitleAge(type: type, yearStart: yearStart, yearEnd: yearEnd, released: released)
        #expect(FreshnessPolicy().ageClass(of: title, at: now) == expected)
    }

    @Test func ttlsFollowTheClassesAndFlatIgnoresThem() {
        let policy = FreshnessPolicy()
        let recent = TitleAge(releasedAt: now - day, isRunningSeries: false)
        let old = TitleAge(releasedAt: now - 4_000 * day, isRunningSeries: false)
        #expect(policy.ttl(of: recent, at: now) == 7 * day)
        #expect(policy.ttl(of: old, at: now) == 90 * day)
        #expect(policy.ttl(of: TitleAge(releasedAt: nil, isRunningSeries: false), at: now) == 30 * day)
        #expect(FreshnessPolicy.flat(12 * day).ttl(of: recent, at: now) == 12 * day)
        #expect(FreshnessPolicy.flat(12 * day).ttl(of: old, at: now) == 12 * day)
    }

    @Test func failedIDsBackOffExponentiallyUpToTheCap() {
        let policy = FreshnessPolicy()
        let waits = (1...10).map { policy.nextFailureAttempt(after: $0, at: now).timeIntervalSince(now) / 3_600 }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 128, 168, 168])
        #expect(policy.nextFailureAttempt(after: 1_000, at: now).timeIntervalSince(now) == 7 * day)
    }

    @Test func calendarDaysBecomeUTCMidnightsExactly() {
        #expect(Timestamp.format(Timestamp.midnight(year: 2024, month: 2, day: 29)) == "2024-02-29T00:00:00Z")
        #expect(Timestamp.format(Timestamp.midnight(year: 1900, month: 3, day: 1)) == "1900-03-01T00:00:00Z")
        #expect(Timestamp.midnight(year: 1970, month: 1, day: 1).timeIntervalSince1970 == 0)
        var day = Date(timeIntervalSince1970: -34_723 * 86_400)
        while day.timeIntervalSince1970 < 4_000_000_000 {
            let text = Timestamp.format(day)
            let parts = text.prefix(10).split(separator: "-").map { Int($0)! }
            #expect(Timestamp.midnight(year: parts[0], month: parts[1], day: parts[2]) == day)
            day.addTimeInterval(86_400 * 37)
        }
    }
}
