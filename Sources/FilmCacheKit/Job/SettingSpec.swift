/// One setting of the registry without its value type: what docs/JOBS.md, the job file reader and
/// the range check need. ``Setting/spec`` makes it; ``all`` lists every one.
public struct SettingSpec: Sendable {
    /// The job file key.
    public let key: JobKey
    /// The values taken, for numeric settings.
    public let range: SettingRange?
    /// The flag's help line, default included.
    public let help: String
    /// More help, shown below the flag's line.
    public let discussion: String?
    /// The type column of docs/JOBS.md, range and order included.
    let type: String
    /// The default column of docs/JOBS.md.
    let defaultText: String
    /// The default as a number in the setting's unit, for numeric settings that have one.
    let defaultNumber: Double?
    /// The meaning column of docs/JOBS.md.
    let meaning: String
    /// The flag column of docs/JOBS.md.
    let flagText: String
    /// Reads a job file entry given for `key`.
    let read: @Sendable (JobValueReader, JobKey) throws(JobFileError.Issue) -> any Sendable
    /// A value of this setting as a number in its unit, for ranges and order; nil for the others.
    let number: @Sendable (any Sendable) -> Double?
    /// Whether two values of this setting are the same.
    let same: @Sendable (any Sendable, any Sendable) -> Bool

    /// Every setting, in ``JobKey`` order.
    public static let all: [SettingSpec] = [
        Setting.worklists.spec, Setting.db.spec, Setting.dbPasswordFile.spec, Setting.apiKeyFile.spec,
        Setting.apiKeyEnv.spec, Setting.baseURL.spec, Setting.rate.spec, Setting.burst.spec, Setting.maxInFlight.spec,
        Setting.dailyLimit.spec, Setting.reserve.spec, Setting.quotaTimezone.spec, Setting.ttlDays.spec,
        Setting.recentTTLDays.spec, Setting.recentWindowDays.spec, Setting.oldTTLDays.spec,
        Setting.oldAfterYears.spec, Setting.notFoundTTLDays.spec, Setting.titleNotFoundTTLDays.spec,
        Setting.maxRuntime.spec, Setting.claimLease.spec, Setting.worklistFormat.spec, Setting.metricsFile.spec,
        Setting.logFormat.spec, Setting.timeout.spec, Setting.connectTimeout.spec, Setting.maxAttempts.spec,
        Setting.retryBase.spec, Setting.retryCap.spec, Setting.breakerPauseAfter.spec,
        Setting.breakerStopAfter.spec, Setting.breakerCoolDown.spec, Setting.posterStore.spec,
        Setting.posterRate.spec, Setting.posterMaxInFlight.spec, Setting.posterMaxBytes.spec,
        Setting.posterRevalidateDays.spec, Setting.posterGoneRetryDays.spec, Setting.answerTTLHours.spec,
        Setting.negativeTTLHours.spec, Setting.requestTimeout.spec, Setting.requestHeadTimeout.spec,
        Setting.ioThreads.spec,
        Setting.progressInterval.spec, Setting.posterAllowHosts.spec, Setting.sources.spec,
        Setting.tmdbTokenFile.spec, Setting.tmdbBaseURL.spec, Setting.tmdbRate.spec, Setting.tmdbMaxInFlight.spec,
        Setting.tmdbTTLDays.spec, Setting.tmdbFindTTLDays.spec,
    ]

    /// Each key's setting.
    static let byKey: [JobKey: SettingSpec] = Dictionary(all.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
}

/// Two settings whose values must be in order: the first no more than the second.
public struct SettingOrder: Sendable {
    /// The setting that must not be more.
    public let smaller: JobKey
    /// The setting that must not be less.
    public let larger: JobKey
    /// The message when the job file and the flags together put them out of order.
    public let together: String

    /// The settings that must be in order, each pair once.
    public static let all: [SettingOrder] = [
        SettingOrder(smaller: .retryBase, larger: .retryCap, together: "the retry base is more than the retry cap"),
        SettingOrder(
            smaller: .breakerPauseAfter, larger: .breakerStopAfter,
            together: "breaker stop-after is less than pause-after"),
    ]
}

extension JobKey {
    /// This key's setting in the registry.
    public var setting: SettingSpec {
        guard let spec = SettingSpec.byKey[self] else { preconditionFailure("\(rawValue) is not in the registry") }
        return spec
    }

    /// The range of a numeric setting, `nil` for the others; flags and job files both check it.
    public var range: SettingRange? { setting.range }

    /// The command-line flag setting the same value: `--max-in-flight` for `max_in_flight`.
    public var flag: String { "--" + String(rawValue.map { $0 == "_" ? "-" : $0 }) }
}
