import Testing

@testable import FilmCacheKit

/// The progress line's wording, numbers and estimate, without a terminal.
@Suite struct ProgressLineTests {
    @Test func theLineReadsDoneOfTotalRateETAAndQuotaLeft() {
        let progress = WarmProgress(done: 1_234, total: 5_000, quotaLeft: 3_210, elapsed: .seconds(1_234.0 / 42.1))
        #expect(ProgressLine.text(progress) == "  1,234/5,000 films  42.1/s  ETA 1m29s  quota left 3,210")
    }

    @Test func beforeAnyIDIsDoneTheETAIsUnknown() {
        let progress = WarmProgress(done: 0, total: 5_000, quotaLeft: 950, elapsed: .seconds(3))
        #expect(ProgressLine.text(progress) == "  0/5,000 films  0.0/s  ETA --  quota left 950")
        #expect(ProgressLine.metadata(progress)["eta"] == "-")
    }

    @Test func whenEverythingIsDoneTheETAIsZero() {
        let progress = WarmProgress(done: 280, total: 280, quotaLeft: 0, elapsed: .seconds(2))
        #expect(ProgressLine.text(progress) == "  280/280 films  140/s  ETA 0s  quota left 0")
    }

    @Test func theLogFormHasPlainNumbers() {
        let progress = WarmProgress(
            done: 12_345, total: 20_000, fetched: 12_000, notFound: 300, failed: 45, calls: 12_400, quotaLeft: 87_600,
            elapsed: .seconds(10))
        #expect(
            ProgressLine.metadata(progress) == [
                "done": "12345", "total": "20000", "rate": "1235", "eta": "6s", "quota_left": "87600",
                "fetched": "12000", "not_found": "300", "failed": "45", "calls": "12400",
            ])
    }

    @Test(arguments: [
        (0, "0"), (7, "7"), (999, "999"), (1_000, "1,000"), (12_345, "12,345"), (999_999, "999,999"),
        (1_000_000, "1,000,000"), (-1_234, "-1,234"),
    ])
    func thousandsAreSeparatedByCommas(value: Int, text: String) {
        #expect(ProgressLine.grouped(value) == text)
    }

    @Test(arguments: [
        (0.0, "0.0"), (0.04, "0.0"), (0.05, "0.1"), (4.25, "4.3"), (42.14, "42.1"), (99.94, "99.9"), (99.95, "100"),
        (1_234.4, "1,234"), (-3.0, "0.0"), (Double.nan, "0.0"), (Double.infinity, "0.0"),
    ])
    func ratesHaveOneDecimalBelowAHundred(rate: Double, text: String) {
        #expect(ProgressLine.rate(rate) == text)
    }

    @Test func theEstimateFollowsTheRateSoFar() {
        let progress = WarmProgress(done: 100, total: 400, quotaLeft: 1, elapsed: .seconds(50))
        #expect(progress.rate == 2)
        #expect(progress.estimatedTimeLeft == .seconds(150))
    }
}
