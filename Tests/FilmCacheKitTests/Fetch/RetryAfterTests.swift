import FilmCacheKit
import Foundation
import SplitMix
import Testing

extension FetchPolicyTests {
    /// Parsing Retry-After headers and resolving them against the wall clock.
    @Suite("RetryAfter")
    struct RetryAfterTests {
        @Test(
            "delta-seconds parse",
            arguments: [("120", 120), ("0", 0), (" 7 ", 7), ("86400", 86_400), ("000042", 42)])
        func deltaSeconds(text: String, seconds: Int) {
            #expect(RetryAfter(headerValue: text) == .delay(.seconds(seconds)))
        }

        @Test("absurdly large delta-seconds are clamped, not rejected")
        func hugeDelta() throws {
            let parsed = try #require(RetryAfter(headerValue: "99999999999999999999999999"))
            guard case .delay(let duration) = parsed else {
                Issue.record("expected a delay")
                return
            }
            #expect(duration > .seconds(86_400 * 365 * 99))
        }

        @Test(
            "HTTP dates in all three forms parse",
            arguments: [
                ("Wed, 21 Oct 2026 07:28:00 GMT", TestDates.utc(2026, 10, 21, 7, 28, 0)),
                ("Sun, 06 Nov 1994 08:49:37 GMT", TestDates.utc(1994, 11, 6, 8, 49, 37)),
                ("Sunday, 06-Nov-94 08:49:37 GMT", TestDates.utc(1994, 11, 6, 8, 49, 37)),
                ("Wednesday, 21-Oct-26 07:28:00 GMT", TestDates.utc(2026, 10, 21, 7, 28, 0)),
                ("Sun Nov  6 08:49:37 1994", TestDates.utc(1994, 11, 6, 8, 49, 37)),
                ("Wed Oct 21 07:28:00 2026", TestDates.utc(2026, 10, 21, 7, 28, 0)),
                ("Thu, 01 Jan 1970 00:00:00 GMT", Date(timeIntervalSince1970: 0)),
                ("Tue, 29 Feb 2028 23:59:59 GMT", TestDates.utc(2028, 2, 29, 23, 59, 59)),
                ("Fri, 31 Dec 2027 23:59:59 GMT", TestDates.utc(2027, 12, 31, 23, 59, 59)),
            ])
        func httpDates(text: String, date: Date) {
            #expect(RetryAfter(headerValue: text) == .date(date))
        }

        @Test("the RFC's example is 784111777 seconds after the epoch")
        func rfcExample() {
            #expect(
                RetryAfter(headerValue: "Sun, 06 Nov 1994 08:49:37 GMT")
                    == .date(Date(timeIntervalSince1970: 784_111_777)))
        }

        @Test(
            "anything else is rejected",
            arguments: [
                "", "   ", "-5", "1.5", "+3", "soon", "120s", "Wed, 32 Oct 2026 07:28:00 GMT",
                "Wed, 21 Oct 2026 24:00:00 GMT", "Wed, 21 Oct 2026 07:28:00 PST", "Wed, 29 Feb 2026 07:28:00 GMT",
                "Wed, 21 Foo 2026 07:28:00 GMT", "21 Oct 2026 07:28:00 GMT", "Wed, 21 Oct 26 07:28:00 GMT",
                "Wed, 21 Oct 2026 7:28:00 GMT", "Xyz, 21 Oct 2026 07:28:00 GMT", "2026-10-21T07:28:00Z",
            ])
        func rejected(text: String) {
            #expect(RetryAfter(headerValue: text) == nil)
        }

        @Test("IMF-fixdates of many instants round-trip through the parser")
        func roundTrip() {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(secondsFromGMT: 0)!
            let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
            let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            var generator = SplitMix64(seed: 99)
            for _ in 0..<500 {
                let seconds = Int.random(in: 0...4_102_444_800, using: &generator)
                let date = Date(timeIntervalSince1970: TimeInterval(seconds))
                let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
                let text =
                    "\(days[c.weekday! - 1]), \(two(c.day!)) \(months[c.month! - 1]) \(c.year!) "
                    + "\(two(c.hour!)):\(two(c.minute!)):\(two(c.second!)) GMT"
                #expect(RetryAfter(headerValue: text) == .date(date), "\(text)")
            }
        }

        @Test("the delay counts from now and is never negative")
        func delayRelativeToNow() {
            let now = TestDates.utc(2026, 10, 21, 7, 26, 0)
            #expect(RetryAfter.date(TestDates.utc(2026, 10, 21, 7, 28, 0)).delay(relativeTo: now) == .seconds(120))
            #expect(RetryAfter.date(TestDates.utc(2026, 10, 21, 7, 0, 0)).delay(relativeTo: now) == .zero)
            #expect(RetryAfter.delay(.seconds(30)).delay(relativeTo: now) == .seconds(30))
        }
    }
}
