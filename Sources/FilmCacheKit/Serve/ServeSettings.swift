import Foundation

/// How `filmcache serve` keeps answers.
public struct ServeSettings: Sendable {
    /// How long a stored answer to `t=`, `s=`, `Season=` or `plot=full` that found something is served.
    package var answerTTL: TimeInterval = Setting.answerTTLHours.default * 3_600
    /// How long a stored negative answer ("Movie not found!") is served.
    package var negativeAnswerTTL: TimeInterval = Setting.negativeTTLHours.default * 3_600
    /// The longest a request waits for OMDb; then it gets a stale answer or an error, and the
    /// call, still going, stores its answer for the next request.
    package var requestDeadline = Setting.requestTimeout.default
    /// How often request counts (demand) are written to the cache.
    package var demandInterval = Duration.seconds(5)
    /// Bytes of fresh answers held in memory, so hits read no database (0: none held).
    package var memoryBytes = 64 << 20
    /// How long a process holds a film or query it is asking OMDb for, against the other serve
    /// processes on the database, unless it lets go first (its answer stored) or ends (a killed
    /// process's session with the server ends with it): a process cut off from the server
    /// mid-call keeps the others waiting at most this long.
    package var flightLease = Duration.seconds(30)

    /// Serve's defaults.
    public init() {}
}
