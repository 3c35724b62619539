import Foundation

/// Freshness and the daily budget.
extension Setting where Value == Int {
    /// OMDb's daily limit for the key.
    public static let dailyLimit = Setting(
        .dailyLimit, .integer, default: 1_000, range: SettingRange(0...100_000_000),
        help: "OMDb's daily request limit for this key.",
        meaning: "OMDb's daily limit for the key (free 1,000; patron 100,000 / 250,000)")
}

extension Setting where Value == Double {
    /// Percent of the daily limit kept back.
    public static let reserve = Setting(
        .reserve, .percentage, default: 5, range: SettingRange(0...99, unit: " (percent)"),
        help: "Percent of the daily limit left unused for the apps sharing the key.",
        meaning: "percent of the daily limit left for the apps sharing the key")

    /// Days a cached title stays fresh.
    public static let ttlDays = days(
        .ttlDays, 30, help: "Days a cached title stays fresh (neither recent nor old).",
        meaning: "days a cached title stays fresh (neither recent nor old)")

    /// Days a recent title stays fresh.
    public static let recentTTLDays = days(
        .recentTTLDays, 7, help: "Days a recent release or a running series stays fresh.",
        meaning: "days a recent release or a running series stays fresh")

    /// Days after release a title counts as recent.
    public static let recentWindowDays = days(
        .recentWindowDays, 182, help: "Days after release a title counts as recent.",
        meaning: "days after release a title counts as recent")

    /// Days an old title stays fresh.
    public static let oldTTLDays = days(
        .oldTTLDays, 90, help: "Days a title released long ago stays fresh.",
        meaning: "days a title released long ago stays fresh")

    /// Years after release a title counts as old.
    public static let oldAfterYears = Setting(
        .oldAfterYears, .number, default: 10, range: SettingRange(0...200, unit: " years"),
        help: "Years after release a title counts as old.", meaning: "years after release a title counts as old")

    /// Days a not-found answer stands.
    public static let notFoundTTLDays = days(
        .notFoundTTLDays, 30, help: "Days a not-found answer stands before the ID is asked again.",
        meaning: "days an OMDb \"not found\" stands before the ID is asked again")

    /// Days OMDb's not-found answer for a title stands.
    public static let titleNotFoundTTLDays = days(
        .titleNotFoundTTLDays, 30, help: "Days OMDb's not-found answer for a title stands before it is asked again.",
        meaning: "days an OMDb \"not found\" for a title (`t=`) stands before the title is asked again")

    /// A number of days, 0 to 100 years.
    static func days(_ key: JobKey, _ value: Double, help: String, meaning: String) -> Setting {
        Setting(
            key, .number, default: value, range: SettingRange(0...36_500, unit: " days"), help: help,
            meaning: meaning)
    }
}

extension Setting where Value == QuotaZone {
    /// Where the quota day starts.
    public static let quotaTimezone = Setting(
        .quotaTimezone, .timeZone, default: QuotaZone.utc,
        help: "Time zone whose midnight starts a quota day (e.g. UTC, America/Los_Angeles).",
        meaning: "whose midnight starts a quota day (`America/Los_Angeles`, …)", defaultText: "UTC")
}
