/// How a warm talks to OMDb, as flags and job files give it; each value given replaces the
/// matching setting of ``WarmConfiguration`` or ``CurlMultiTransport/Options``, each nil keeps it.
///
/// A job file and the command line each give one; the job's is applied first, then the flags'.
public struct FetchOverrides: Sendable, Equatable {
    /// OMDb's endpoint, or a stand-in's.
    public var baseURL: String?
    /// Requests per second; 0 for no limit.
    public var rate: Double?
    /// Requests allowed at once above the rate after an idle spell.
    public var burst: Int?
    /// Concurrent requests, also the connection cache size.
    public var maxInFlight: Int?
    /// How long one request may take in all, connecting included.
    public var timeout: Duration?
    /// How long to wait for a connection.
    public var connectTimeout: Duration?
    /// Tries per ID in one run for transient failures, the first included.
    public var maxAttempts: Int?
    /// The ceiling of the first retry's wait; it doubles per attempt, with full jitter.
    public var retryBase: Duration?
    /// The largest wait between retries.
    public var retryCap: Duration?
    /// Transient failures in a row that pause new work for a cool-down.
    public var breakerPauseAfter: Int?
    /// Transient failures in a row that end the run.
    public var breakerStopAfter: Int?
    /// How long new work waits after the breaker pauses it.
    public var breakerCoolDown: Duration?

    /// No overrides.
    public init() {}

    /// Replaces the values of `configuration` that this gives.
    ///
    /// A `Retry-After` is honoured up to 120 seconds, or up to the retry cap when that is longer.
    public func apply(to configuration: inout WarmConfiguration) {
        if let baseURL { configuration.baseURL = baseURL }
        if let rate { configuration.rate = rate }
        if let burst { configuration.burst = burst }
        if let maxInFlight { configuration.maxInFlight = maxInFlight }
        let backoff = configuration.backoff
        let cap = retryCap ?? backoff.cap
        configuration.backoff = Backoff(
            base: retryBase ?? backoff.base, cap: cap, maxAttempts: maxAttempts ?? backoff.maxAttempts,
            maxWait: max(.seconds(120), cap))
        let breaker = configuration.circuitBreaker
        configuration.circuitBreaker = CircuitBreaker(
            pauseAfter: breakerPauseAfter ?? breaker.pauseAfter, stopAfter: breakerStopAfter ?? breaker.stopAfter,
            coolDown: breakerCoolDown ?? breaker.coolDown)
    }

    /// Replaces the values of `options` that this gives.
    public func apply(to options: inout CurlMultiTransport.Options) {
        if let maxInFlight { options.maxInFlight = maxInFlight }
        if let timeout { options.totalTimeout = timeout }
        if let connectTimeout { options.connectTimeout = connectTimeout }
    }
}
