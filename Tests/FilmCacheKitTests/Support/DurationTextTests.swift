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

    @Test(
        arguments: [
            (0.0, "0s"), (0.4, "0s"), (45, "45s"), (59.6, "1m00s"), (89, "1m29s"), (3_599, "59m59s"), (3_600, "1h00m"),
            (7_380, "2h03m"), (86_399, "23h59m"), (90_000, "1d01h"), (-5, "0s"),
        ] as [(Double, String)])
    func compactFormRoundsToTheSecond(seconds: Double, text: String) {
        #expect(DurationText.compact(.seconds(seconds)) == text)
    }
}
