/// A small, fast, seedable pseudo-random generator whose output is identical on every platform (SplitMix64).
///
/// Not cryptographic. The one generator of the package, for whatever must be reproducible from a
/// seed: the stand-in's corpus and fault sequence (drawn through the methods below, never the
/// standard library's `random(in:using:)` helpers, whose algorithms may change between
/// toolchains) and the tests' seeded jitter and fuzzing (as a `RandomNumberGenerator`).
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// Creates a generator whose sequence is fully determined by `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// Returns the next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Returns a uniformly distributed integer in `range` (a negligible modulo bias is accepted).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % width)
    }

    /// Returns a uniformly distributed double in `0..<1` built from the top 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Returns `true` with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    /// Returns one element of a non-empty array.
    public mutating func pick<Element>(_ elements: [Element]) -> Element {
        elements[int(in: 0...(elements.count - 1))]
    }

    /// Returns `count` distinct elements of `elements`, in the order drawn.
    public mutating func pick<Element>(_ count: Int, of elements: [Element]) -> [Element] {
        var pool = elements
        var chosen: [Element] = []
        for _ in 0..<min(count, pool.count) {
            chosen.append(pool.remove(at: int(in: 0...(pool.count - 1))))
        }
        return chosen
    }

    /// Mixes a seed and an index into an independent seed, so each film has its own stream.
    public static func derive(seed: UInt64, index: UInt64) -> UInt64 {
        var mixer = SplitMix64(seed: seed ^ (index &* 0xD1B5_4A32_D192_ED03))
        return mixer.next()
    }
}
