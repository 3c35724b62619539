import Testing

@testable import FilmCacheKit

@Suite struct DurationTextTests {
    @Test(arguments: [
        ("90", Duration.seconds(90)), ("2.5", .milliseconds(2500)), ("45s", .seconds(45)), ("45m", .seconds(2700)),
        ("2h", .seconds(7200)), ("1.5h", .seconds(5400)), ("1h30m", .seconds(5400)), ("1h 30m", .seconds(5400)),
        ("1d", .seconds(86400)), ("250ms", .milliseconds(250)), (" 10 min ", .seconds(600)), ("0s", .zero),
        ("2H", .seconds(7200)),
    ])
    func parses(text: String, expected: Duration) {
        #expect(Duration(parsing: text) == expected)
    }

    @Test(arguments: [
        "", "h", "-5", "-5m", "5 parsecs", "1h30", "soon", "1..5s", "m5", "inf", "nan", "1e300", "1e300h",
    ])
    func refuses(text: String) {
        #expect(Duration(parsing: text) == nil)
    }
}
