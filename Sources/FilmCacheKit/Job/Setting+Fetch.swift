/// How OMDb is asked: endpoint, pace, concurrency, timeouts, retries and the circuit breaker.
extension Setting where Value == String {
    /// OMDb's endpoint, or a stand-in's.
    public static let baseURL = Setting(
        .baseURL, .text, default: "https://www.omdbapi.com/",
        help: "OMDb endpoint; point it at a stand-in for offline runs.", meaning: "OMDb's endpoint, or a stand-in's",
        type: "string")
}

extension Setting where Value == Double {
    /// Requests per second; 0 for no limit.
    public static let rate = Setting(
        .rate, .number, default: 5, range: SettingRange(0.001...1_000, unit: " requests a second", alsoAllowed: 0),
        help: "Requests per second; 0 for no limit.", meaning: "requests per second; 0 for no limit")
}

extension Setting where Value == Int {
    /// Requests allowed at once above the rate.
    public static let burst = Setting(
        .burst, .integer, default: 5, range: SettingRange(1...1_000),
        help: "Requests allowed at once above the rate after an idle spell.",
        meaning: "requests allowed at once above the rate after an idle spell")

    /// Concurrent requests, also the connection cache size.
    public static let maxInFlight = Setting(
        .maxInFlight, .integer, default: 8, range: SettingRange(1...256),
        help: "Concurrent OMDb requests (also the connection cache size).",
        meaning: "concurrent requests, also the connection cache size")

    /// Tries per ID in one run for transient failures, the first included.
    public static let maxAttempts = Setting(
        .maxAttempts, .integer, default: 4, range: SettingRange(1...100),
        help: "Tries per ID in one run for transient failures, the first included.",
        meaning: "tries per ID in one run for transient failures, the first included")

    /// Transient failures in a row that pause new work.
    public static let breakerPauseAfter = Setting(
        .breakerPauseAfter, .integer, default: 8, range: SettingRange(1...1_000_000),
        help: "Transient failures in a row that pause new work for a cool-down.",
        meaning: "transient failures in a row that pause new work for `breaker_cool_down`")

    /// Transient failures in a row that end the run.
    public static let breakerStopAfter = Setting(
        .breakerStopAfter, .integer, default: 30, range: SettingRange(1...1_000_000),
        help: "Transient failures in a row that end the run (exit 75).",
        meaning: "transient failures in a row that end the run (exit 75)")
}

extension Setting where Value == Duration {
    /// How long one request may take in all.
    public static let timeout = Setting(
        .timeout, .seconds, default: .seconds(30), range: SettingRange(0.001...day, unit: " seconds"),
        help: "Seconds one request may take in all (connecting included).",
        meaning: "how long one request may take in all, connecting included")

    /// How long to wait for a connection.
    public static let connectTimeout = Setting(
        .connectTimeout, .seconds, default: .seconds(10), range: SettingRange(0.001...day, unit: " seconds"),
        help: "Seconds to wait for a connection.", meaning: "how long to wait for a connection")

    /// The first retry's wait ceiling.
    public static let retryBase = Setting(
        .retryBase, .seconds, default: .seconds(1), range: SettingRange(0...day, unit: " seconds"),
        help: "Seconds before the first retry; doubles per attempt, with full jitter.",
        meaning: "the first retry's wait ceiling; it doubles per attempt, with full jitter")

    /// The largest wait between retries.
    public static let retryCap = Setting(
        .retryCap, .seconds, default: .seconds(30), range: SettingRange(0...day, unit: " seconds"),
        help: "Largest wait between retries, in seconds.",
        meaning: "the largest wait between retries (`Retry-After` is honoured up to 120 s or this, whichever is"
            + " longer)")

    /// How long new work waits after the breaker pauses it.
    public static let breakerCoolDown = Setting(
        .breakerCoolDown, .seconds, default: .seconds(30), range: SettingRange(0...day, unit: " seconds"),
        help: "Seconds new work waits after the breaker pauses it.",
        meaning: "how long new work waits after the breaker pauses it")
}

/// One day in seconds: the longest wait any retry, timeout or cool-down takes.
let day: Double = 86_400
