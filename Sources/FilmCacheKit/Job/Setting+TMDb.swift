/// TMDb, the second source: which sources a warm reads, TMDb's token, endpoint, pace and freshness.
extension Setting where Value == [String] {
    /// Where `warm` fetches from.
    public static let sources = Setting(
        .sources, .choices(JobKey.sourceNames), default: ["omdb"],
        help: "Where warm fetches from: omdb, tmdb (repeat the flag for both).",
        meaning: "where `warm` fetches from: `omdb`, `tmdb`, or both", flag: "`--source` (repeatable)")
}

extension Setting where Value == String {
    /// A file holding the TMDb token.
    public static let tmdbTokenFile = Setting(
        .tmdbTokenFile, .path, default: nil,
        help: "File holding the TMDb read access token (v4) or API key (v3); else TMDB_API_TOKEN.",
        meaning: "a file holding the TMDb read access token or API key; without it `TMDB_API_TOKEN`")

    /// TMDb's API base, or a stand-in's.
    public static let tmdbBaseURL = Setting(
        .tmdbBaseURL, .text, default: TMDbEndpoint.defaultBaseURL,
        help: "TMDb's API base; point it at a stand-in for offline runs.", meaning: "TMDb's API base, or a stand-in's",
        type: "string")
}

extension Setting where Value == Double {
    /// TMDb requests per second; 0 for no limit.
    public static let tmdbRate = Setting(
        .tmdbRate, .number, default: 20,
        range: SettingRange(0.001...1_000, unit: " requests a second", alsoAllowed: 0),
        help: "TMDb requests per second (TMDb answers 429 above about 40); 0 for no limit.",
        meaning: "TMDb requests a second (TMDb answers 429 above about 40 from one address); 0 for no limit")

    /// Days a TMDb entry stays fresh when the changes feed does not name it.
    public static let tmdbTTLDays = days(
        .tmdbTTLDays, 30, help: "Days a TMDb entry stays fresh unless TMDb's changes feed names it.",
        meaning: "days a TMDb entry stays fresh unless TMDb's changes feed names it sooner")

    /// Days TMDb's `/find` answer stands.
    public static let tmdbFindTTLDays = days(
        .tmdbFindTTLDays, 30, help: "Days TMDb's answer to which entry an IMDb ID is (or that none is) stands.",
        meaning: "days TMDb's `/find` answer for an IMDb ID stands, a negative one too")
}

extension Setting where Value == Int {
    /// TMDb requests at once.
    public static let tmdbMaxInFlight = Setting(
        .tmdbMaxInFlight, .integer, default: 8, range: SettingRange(1...256), help: "Concurrent TMDb requests.",
        meaning: "concurrent TMDb requests")
}
