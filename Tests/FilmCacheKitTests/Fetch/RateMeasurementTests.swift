import FilmCacheKit
import Testing

extension FetchPolicyTests {
    /// Achieved-rate and busiest-window arithmetic over recorded send instants.
    @Suite("RateMeasurement")
    struct RateMeasurementTests {
        /// A manual clock instant.
        typealias Instant = ManualClock.Instant

        /// Instants at the given offsets from the origin.
        static func at(_ offsets: [Duration]) -> [Instant] {
            offsets.map { Instant(offset: $0) }
        }

        @Test("no sends measure as zero")
        func empty() {
            let measured = RateMeasurement(sendInstants: [Instant]())
            #expect(measured.count == 0)
            #expect(measured.span == .zero)
            #expect(measured.maxInWindow == 0)
            #expect(measured.meanRate == 0)
            #expect(measured.rate(over: .seconds(60)) == 0)
        }

        @Test("a 60-second run at 20 per second measures 20 per second and 20 per window")
        func steadyTwentyPerSecond() {
            let sends = Self.at((0...1_200).map { .milliseconds(50 * $0) })
            let measured = RateMeasurement(sendInstants: sends)
            #expect(measured.count == 1_201)
            #expect(measured.span == .seconds(60))
            #expect(abs(measured.meanRate - 20) < 1e-9)
            #expect(measured.maxInWindow == 20)
            #expect(abs(measured.rate(over: .seconds(60)) - 1_201.0 / 60) < 1e-9)
        }

        @Test("a burst shows in the busiest window; order of input does not matter")
        func burstWindow() {
            let offsets: [Duration] = [.seconds(3), .zero, .milliseconds(999), .zero, .zero, .seconds(1), .seconds(2)]
            let measured = RateMeasurement(sendInstants: Self.at(offsets))
            #expect(measured.maxInWindow == 4)
            #expect(measured.span == .seconds(3))
            #expect(abs(measured.meanRate - 2) < 1e-9)
        }

        @Test("windows are half-open: sends exactly one window apart are in different windows")
        func halfOpen() {
            let measured = RateMeasurement(sendInstants: Self.at([.zero, .seconds(1), .seconds(2)]))
            #expect(measured.maxInWindow == 1)
            let wider = RateMeasurement(sendInstants: Self.at([.zero, .seconds(1), .seconds(2)]), window: .seconds(2))
            #expect(wider.maxInWindow == 2)
        }

        @Test("works on real clock instants")
        func continuousInstants() {
            let start = ContinuousClock.now
            let sends = (0..<10).map { start.advanced(by: .milliseconds(100 * $0)) }
            let measured = RateMeasurement(sendInstants: sends)
            #expect(measured.maxInWindow == 10)
            #expect(abs(measured.meanRate - 10) < 1e-9)
        }
    }
}
