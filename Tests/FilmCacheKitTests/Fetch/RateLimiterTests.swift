import FilmCacheKit
import SplitMix
import Testing

extension FetchPolicyTests {
    /// The GCRA limiter as a pure value: counts, windows, bursts, waits.
    @Suite("RateLimiter")
    struct RateLimiterTests {
        /// The limiter under test, on the manual clock's instants.
        typealias Limiter = RateLimiter<ManualClock>
        /// A manual clock instant.
        typealias Instant = ManualClock.Instant

        /// Offset zero.
        static let origin = Instant(offset: .zero)

        /// Sends as fast as the limiter allows from the origin through `seconds` (inclusive).
        static func greedySends(rate: Double, burst: Int, seconds: Int) -> [Instant] {
            var limiter = Limiter(rate: rate, burst: burst)
            let end = origin.advanced(by: .seconds(seconds))
            var now = origin
            var sends: [Instant] = []
            while now <= end {
                switch limiter.request(at: now) {
                case .proceed:
                    sends.append(now)
                case .wait(let until):
                    #expect(until > now)
                    now = until
                }
            }
            return sends
        }

        @Test(
            "a greedy sender gets exactly rate·N + burst over N seconds, and no 1-second window exceeds rate + burst",
            arguments: [
                (1.0, 1, 10), (2.0, 1, 30), (5.0, 1, 10), (10.0, 3, 30), (20.0, 1, 60), (20.0, 5, 60),
                (50.0, 10, 20), (4.0, 8, 15), (0.5, 1, 60), (0.25, 2, 40),
            ])
        func greedyCountAndWindows(rate: Double, burst: Int, seconds: Int) {
            let sends = Self.greedySends(rate: rate, burst: burst, seconds: seconds)
            #expect(sends.count == Int(rate * Double(seconds)) + burst)
            let measured = RateMeasurement(sendInstants: sends)
            #expect(Double(measured.maxInWindow) <= rate + Double(burst))
            #expect(measured.maxInWindow >= min(burst, sends.count))
        }

        @Test("a non-integral interval still keeps every window within rate + burst", arguments: [3.0, 7.0, 0.3, 33.0])
        func awkwardRates(rate: Double) {
            let sends = Self.greedySends(rate: rate, burst: 2, seconds: 30)
            let expected = rate * 30 + 2
            #expect(abs(Double(sends.count) - expected) <= 1)
            let measured = RateMeasurement(sendInstants: sends)
            #expect(Double(measured.maxInWindow) <= (rate + 2).rounded(.up))
        }

        @Test("the steady interval is 1/rate")
        func interval() {
            #expect(Limiter(rate: 20).interval == .milliseconds(50))
            #expect(Limiter(rate: 4).interval == .milliseconds(250))
            #expect(Limiter(rate: 0.5).interval == .seconds(2))
        }

        @Test("the burst is available again after an idle spell")
        func burstAfterIdle() {
            var limiter = Limiter(rate: 2, burst: 4)
            for _ in 0..<4 { #expect(limiter.request(at: Self.origin) == .proceed) }
            #expect(limiter.request(at: Self.origin) == .wait(until: Self.origin.advanced(by: .milliseconds(500))))
            let later = Self.origin.advanced(by: .seconds(10))
            for _ in 0..<4 { #expect(limiter.request(at: later) == .proceed) }
            guard case .wait = limiter.request(at: later) else {
                Issue.record("a fifth request in the same instant must wait")
                return
            }
        }

        @Test("the burst refills one slot per interval")
        func partialRefill() {
            var limiter = Limiter(rate: 1, burst: 3)
            for _ in 0..<3 { #expect(limiter.request(at: Self.origin) == .proceed) }
            let t = Self.origin.advanced(by: .seconds(2))
            #expect(limiter.request(at: t) == .proceed)
            #expect(limiter.request(at: t) == .proceed)
            #expect(limiter.request(at: t) == .wait(until: Self.origin.advanced(by: .seconds(3))))
        }

        @Test("a refused request is not counted, however often it is asked")
        func waitDoesNotCount() {
            var limiter = Limiter(rate: 1, burst: 1)
            #expect(limiter.request(at: Self.origin) == .proceed)
            let retryAt = Self.origin.advanced(by: .seconds(1))
            for _ in 0..<100 {
                #expect(limiter.request(at: Self.origin.advanced(by: .milliseconds(300))) == .wait(until: retryAt))
            }
            #expect(limiter.request(at: retryAt) == .proceed)
        }

        @Test("zero, negative, NaN or infinite rates are unlimited", arguments: [0.0, -5.0, .nan, .infinity])
        func unlimited(rate: Double) {
            var limiter = Limiter(rate: rate, burst: 1)
            #expect(limiter.isUnlimited)
            for _ in 0..<10_000 { #expect(limiter.request(at: Self.origin) == .proceed) }
            #expect(limiter.reserve(at: Self.origin) == Self.origin)
        }

        @Test("a burst below 1 behaves as 1")
        func burstClamp() {
            var limiter = Limiter(rate: 10, burst: 0)
            #expect(limiter.burst == 1)
            #expect(limiter.request(at: Self.origin) == .proceed)
            #expect(limiter.request(at: Self.origin) == .wait(until: Self.origin.advanced(by: .milliseconds(100))))
        }

        @Test("reservations hand out consecutive slots and leave request() waiting behind them")
        func reservations() {
            var limiter = Limiter(rate: 10, burst: 2)
            let slots = (0..<6).map { _ in limiter.reserve(at: Self.origin).offset }
            #expect(
                slots == [.zero, .zero, .milliseconds(100), .milliseconds(200), .milliseconds(300), .milliseconds(400)])
            #expect(limiter.request(at: Self.origin) == .wait(until: Self.origin.advanced(by: .milliseconds(500))))
            #expect(limiter.earliestStart(at: Self.origin) == Self.origin.advanced(by: .milliseconds(500)))
        }

        @Test("random arrivals never see more than rate + burst in a window, and waits are exact")
        func randomArrivals() {
            var generator = SplitMix64(seed: 42)
            for _ in 0..<20 {
                let rate = Double(Int.random(in: 1...30, using: &generator))
                let burst = Int.random(in: 1...6, using: &generator)
                var limiter = Limiter(rate: rate, burst: burst)
                var now = Self.origin
                var sends: [Instant] = []
                for _ in 0..<2_000 {
                    now = now.advanced(by: .milliseconds(Int.random(in: 0...120, using: &generator)))
                    switch limiter.request(at: now) {
                    case .proceed:
                        sends.append(now)
                    case .wait(let until):
                        #expect(until > now)
                        var probe = limiter
                        #expect(probe.request(at: until) == .proceed)
                    }
                }
                let measured = RateMeasurement(sendInstants: sends)
                #expect(Double(measured.maxInWindow) <= rate + Double(burst))
            }
        }
    }
}
