import FilmCacheKit
import SplitMix
import Testing

extension FetchPolicyTests {
    /// The daily budget after the reserve is kept back.
    @Suite("QuotaBudget")
    struct QuotaBudgetTests {
        @Test(
            "the reserve is rounded up, so it is never eaten",
            arguments: [
                (1_000, 5.0, 950), (1_000, 0.0, 1_000), (1_000, 100.0, 0), (1_000, 7.0, 930), (100_000, 3.3, 96_700),
                (1_000, 0.1, 999), (1_000, 0.05, 999), (999, 5.0, 949), (10, 5.0, 9), (1, 5.0, 0), (0, 5.0, 0),
                (1_000, -3.0, 1_000), (1_000, 150.0, 0), (250_000, 5.0, 237_500), (-10, 5.0, 0),
            ])
        func usable(limit: Int, reservePercent: Double, usable: Int) {
            let budget = QuotaBudget(limit: limit, reservePercent: reservePercent)
            #expect(budget.usable == usable)
            #expect(budget.usable + budget.reserve == max(0, limit))
        }

        @Test(
            "what is left counts down to zero and never below",
            arguments: [(0, 950), (900, 50), (950, 0), (2_000, 0), (-5, 950)])
        func left(used: Int, left: Int) {
            #expect(QuotaBudget(limit: 1_000, reservePercent: 5).left(used: used) == left)
        }

        @Test("the reserve always covers the requested share and overshoots by less than one request")
        func reserveProperty() {
            var generator = SplitMix64(seed: 5)
            for _ in 0..<5_000 {
                let limit = Int.random(in: 0...1_000_000, using: &generator)
                let percent = Double(Int.random(in: 0...10_000, using: &generator)) / 100
                let budget = QuotaBudget(limit: limit, reservePercent: percent)
                let exact = Double(limit) * percent / 100
                #expect(Double(budget.reserve) >= exact - 1e-6)
                #expect(Double(budget.reserve) < exact + 1)
                #expect(budget.usable >= 0 && budget.usable <= limit)
            }
        }

        @Test("an unlimited key never runs out")
        func unlimited() {
            #expect(QuotaBudget.unlimited.left(used: 1_000_000_000) > 1_000_000_000)
            #expect(QuotaBudget.unlimited.reserve == 0)
        }

        @Test("NaN reserve is treated as none")
        func nanReserve() {
            #expect(QuotaBudget(limit: 100, reservePercent: .nan).usable == 100)
        }
    }
}
