/// `serve`'s own settings.
extension Setting where Value == Double {
    /// Hours a stored answer that found something is served.
    public static let answerTTLHours = Setting(
        .answerTTLHours, .number, default: 168, range: hours,
        help: "Hours a stored t=, s= or Season= answer that found something is served ({range}).",
        meaning: "`serve`: hours a stored `t=`, `s=`, `Season=` or `plot=full` answer that found something is"
            + " served")

    /// Hours a stored negative answer is served.
    public static let negativeTTLHours = Setting(
        .negativeTTLHours, .number, default: 24, range: hours,
        help: "Hours a stored negative answer (Movie not found!) is served ({range}).",
        meaning: "`serve`: hours a stored negative answer (\"Movie not found!\") is served, to the spelling that"
            + " got it")

    /// Up to ten years.
    private static let hours = SettingRange(0...87_600, unit: " hours")
}

extension Setting where Value == Duration {
    /// How long a request waits for OMDb.
    public static let requestTimeout = Setting(
        .requestTimeout, .seconds, default: .seconds(10), range: requestSeconds,
        help: "Seconds a request waits for OMDb before it gets a stale answer or an error ({range}).",
        meaning: "`serve`: how long a request waits for OMDb before it gets a stale answer or an error")

    /// How long a client has to send a request's line and headers.
    public static let requestHeadTimeout = Setting(
        .requestHeadTimeout, .seconds, default: .seconds(10), range: requestSeconds,
        help: "Seconds a client has to send a request's line and headers before it is dropped ({range}).",
        meaning: "`serve`: how long a client has to send a request's line and headers before its connection is"
            + " closed")

    /// A tenth of a second to an hour.
    private static let requestSeconds = SettingRange(0.1...3_600, unit: " seconds")
}

extension Setting where Value == Int {
    /// Threads that read connections, and answer there what memory holds.
    public static let ioThreads = Setting(
        .ioThreads, .integer, default: nil, range: SettingRange(1...256),
        help: "Threads that read connections and answer the films held in memory ({range}). Default one a core.",
        meaning: "`serve`: threads that read connections and answer the films held in memory (a miss waits on"
            + " OMDb apart from them)",
        noDefault: "one a core")
}
