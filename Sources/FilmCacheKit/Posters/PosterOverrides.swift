/// Poster settings as a job file (`poster_*` keys) or flags give them; each value given replaces
/// the matching ``PosterSettings`` value, each nil keeps it. The job's are applied first, then the flags'.
public struct PosterOverrides: Sendable, Equatable {
    /// The poster store's directory.
    public var store: String?
    public var rate: Double?
    public var maxInFlight: Int?
    public var maxBytes: Int?
    public var revalidateDays: Double?
    public var goneRetryDays: Double?
    /// Hosts that may be on internal addresses, normalized; replaces the job file's list when given.
    public var allowHosts: [String]?

    public init() {}

    /// Replaces the values of `settings` that this gives.
    public func apply(to settings: inout PosterSettings) {
        if let rate { settings.rate = rate }
        if let maxInFlight { settings.maxInFlight = maxInFlight }
        if let maxBytes { settings.maxBytes = maxBytes }
        if let revalidateDays { settings.revalidateAfter = .seconds(revalidateDays * 86_400) }
        if let goneRetryDays { settings.goneRetryAfter = .seconds(goneRetryDays * 86_400) }
        if let allowHosts { settings.allowedHosts = allowHosts }
    }

    /// The values given, by the key that names them, for the range check.
    public var values: [JobKey: Double?] {
        [
            .posterRate: rate, .posterMaxInFlight: maxInFlight.map(Double.init),
            .posterMaxBytes: maxBytes.map(Double.init), .posterRevalidateDays: revalidateDays,
            .posterGoneRetryDays: goneRetryDays,
        ]
    }
}
