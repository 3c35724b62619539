import Testing

@testable import FilmCacheKit

/// Durations typed on the command line, and the short form progress lines print.
@Suite struct DurationTextTests {
    @Test(
        arguments: [
            ("90", 90.0), ("90s", 90), ("45m", 2_700), ("2h", 7_200), ("1h30m", 5_400), ("1d", 86_400),
            ("1.5h", 5_400), ("0.5", 0.5), ("0", 0), (" 2H ", 7_200), ("1h0m5s", 3_605), ("1d2h3m4s", 93_784),
        ] as [(String, Double)])
    func parsesSecondsAndUnits(text: String, seconds: Double) {
        #expect(DurationText.parse(text) == .seconds(seconds))
    }

    @Test(arguments: [
        "", " ", "h", "m5", "-5", "-5m", "5x", "1m1h", "1h1h", "1e3", "inf", "nan", "0x10", "1..5s", "5 m", "1h30",
        "1.2.3",
    ])
    func rejectsWhatIsNoDuration(text: String) {
        #expect(DurationText.parse(text) == nil)
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
