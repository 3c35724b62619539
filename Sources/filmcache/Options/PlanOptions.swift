import ArgumentParser
import FilmCacheKit
import Foundation

/// Flags that shape a plan: freshness and the daily budget. Shared by `warm` and `plan`; `stats`
/// takes only the freshness half and `quota` only the budget half, so no command lists a flag
/// it ignores.
///
/// Every flag is optional so that a job file's value stands unless the flag is given.
struct PlanOptions: ParsableArguments {
    @OptionGroup var freshness: FreshnessOptions

    @OptionGroup var budget: BudgetOptions

    /// Applies the job file's values, then the flags given over them.
    func apply(to settings: inout PlanSettings, job: JobFile?) {
        settings.apply((job?.settings ?? SettingValues()).overlaid(by: given))
    }

    /// The freshness and budget flags given, by setting.
    var given: SettingValues { freshness.flags.values.overlaid(by: budget.flags.values) }
}

/// `--refresh`: the worklists' films fetched again though fresh. `warm` and `plan` only.
struct RefreshOption: ParsableArguments {
    @Flag(
        help: ArgumentHelp(
            "Fetch the worklists' IDs again even when fresh or answered \"not found\".",
            discussion: "Each once: a film fetched after the run began (by it or a warm beside it) is not"
                + " fetched again. For IDs whose stored answer is wrong (a bad import, a host's wrong clock):"
                + " put them in a worklist of their own."))
    var refresh = false

    /// Sets the refresh instant when `--refresh` is given: rows fetched before `now` are stale.
    func apply(to settings: inout PlanSettings, now: Date) {
        Self.apply(refresh, to: &settings, now: now)
    }

    /// Makes `settings` fetch every ID again (fetched before `now`) when `refresh`.
    static func apply(_ refresh: Bool, to settings: inout PlanSettings, now: Date) {
        if refresh { settings.freshness.refreshBefore = now }
    }
}

extension PlanOptions {
    /// The default settings with the job file's values and then the flags given applied.
    func settings(job: JobFile?) -> PlanSettings { Self.settings(job: job, given: given) }

    /// The default settings with the job file's values and then `given` applied.
    static func settings(job: JobFile?, given: SettingValues) -> PlanSettings {
        var settings = PlanSettings()
        settings.apply((job?.settings ?? SettingValues()).overlaid(by: given))
        return settings
    }
}

/// Which cached answers are still good.
struct FreshnessOptions: ParsableArguments {
    @Option(help: Setting.ttlDays.argumentHelp)
    var ttlDays: Double?

    @Option(help: Setting.recentTTLDays.argumentHelp)
    var recentTtlDays: Double?

    @Option(help: Setting.recentWindowDays.argumentHelp)
    var recentWindowDays: Double?

    @Option(help: Setting.oldTTLDays.argumentHelp)
    var oldTtlDays: Double?

    @Option(help: Setting.oldAfterYears.argumentHelp)
    var oldAfterYears: Double?

    @Option(help: Setting.notFoundTTLDays.argumentHelp)
    var notFoundTtlDays: Double?

    @Option(help: Setting.titleNotFoundTTLDays.argumentHelp)
    var titleNotFoundTtlDays: Double?

    /// The freshness flags given, by setting.
    var flags: SettingFlags {
        var flags = SettingFlags()
        flags.add(.ttlDays, ttlDays)
        flags.add(.recentTTLDays, recentTtlDays)
        flags.add(.recentWindowDays, recentWindowDays)
        flags.add(.oldTTLDays, oldTtlDays)
        flags.add(.oldAfterYears, oldAfterYears)
        flags.add(.notFoundTTLDays, notFoundTtlDays)
        flags.add(.titleNotFoundTTLDays, titleNotFoundTtlDays)
        return flags
    }

    func validate() throws {
        try flags.check()
    }

    /// The default settings with the job file's values and then these flags applied.
    func settings(job: JobFile?) -> PlanSettings { PlanOptions.settings(job: job, given: flags.values) }
}

/// The daily budget: the key's limit, the reserve kept for the apps, and when the quota day turns.
struct BudgetOptions: ParsableArguments {
    @Option(help: Setting.dailyLimit.argumentHelp)
    var dailyLimit: Int?

    @Option(help: Setting.reserve.argumentHelp)
    var reserve: Double?

    @Option(help: Setting.quotaTimezone.argumentHelp)
    var quotaTimezone: String?

    /// The budget flags given, by setting.
    var flags: SettingFlags {
        var flags = SettingFlags()
        flags.add(.dailyLimit, dailyLimit)
        flags.add(.reserve, reserve)
        flags.add(.quotaTimezone, quotaTimezone.flatMap { QuotaZone(identifier: $0) })
        return flags
    }

    func validate() throws {
        try flags.check()
        if let quotaTimezone, QuotaZone(identifier: quotaTimezone) == nil {
            throw ValidationError("--quota-timezone: unknown time zone '\(quotaTimezone)'")
        }
    }

    /// The default settings with the job file's values and then these flags applied.
    func settings(job: JobFile?) -> PlanSettings { PlanOptions.settings(job: job, given: flags.values) }
}
