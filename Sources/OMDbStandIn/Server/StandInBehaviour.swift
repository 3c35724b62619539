/// The knobs that shape answers and may change while the server runs.
///
/// Set at start through `StandInConfiguration` (the executable's flags) and at runtime through
/// `OMDbStandInServer.updateBehaviour(_:)` or `POST /__standin/faults` with the flag names as query
/// parameters: `fault-rate`, `faults`, `seed`, `latency-ms`, `limit-after`, `daily-limit`
/// (`none` clears the last two).
public struct StandInBehaviour: Sendable, Equatable, Codable {
    /// Requests per accepted key per quota day; request `dailyLimit + 1` gets `Request limit reached!`.
    /// `nil` means unlimited.
    public var dailyLimit: Int?
    /// After this many OMDb requests in total (since start or the last reset) every key gets
    /// `Request limit reached!`, as if the quota ran out mid-run. `nil` disables it.
    public var limitAfter: Int?
    /// The fraction (0…1) of accepted-key requests answered with a fault.
    public var faultRate: Double
    /// The faults drawn from when a request is faulted; empty disables faults.
    public var faults: [FaultKind]
    /// The seed of the fault generator; the same seed and request order give the same faults.
    public var seed: UInt64
    /// Milliseconds added before every OMDb answer (control endpoints answer at once).
    public var latencyMilliseconds: Int

    /// Creates a behaviour; the defaults answer every request normally, without limits or delay.
    public init(
        dailyLimit: Int? = nil, limitAfter: Int? = nil, faultRate: Double = 0, faults: [FaultKind] = [],
        seed: UInt64 = 1, latencyMilliseconds: Int = 0
    ) {
        self.dailyLimit = dailyLimit
        self.limitAfter = limitAfter
        self.faultRate = faultRate
        self.faults = faults
        self.seed = seed
        self.latencyMilliseconds = latencyMilliseconds
    }
}
