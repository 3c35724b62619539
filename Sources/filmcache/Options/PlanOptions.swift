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
        Self.apply(job: job, to: &settings, add)
    }
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
        if refresh { settings.freshness.refreshBefore = now }
    }
}

extension PlanOptions {

    /// The default settings with the job file's values and then the flags given applied.
    func settings(job: JobFile?) -> PlanSettings { Self.settings(job: job, add) }

    /// The flags given, as overrides of the plan settings.
    func add(to overrides: inout PlanOverrides) {
        freshness.add(to: &overrides)
        budget.add(to: &overrides)
    }

    /// Applies the job file's values to `settings`, then the overrides `add` sets.
    static func apply(job: JobFile?, to settings: inout PlanSettings, _ add: (inout PlanOverrides) -> Void) {
        job?.plan.apply(to: &settings)
        var overrides = PlanOverrides()
        add(&overrides)
        overrides.apply(to: &settings)
    }

    /// The default settings with the job file's values and then the overrides `add` sets.
    static func settings(job: JobFile?, _ add: (inout PlanOverrides) -> Void) -> PlanSettings {
        var settings = PlanSettings()
        apply(job: job, to: &settings, add)
        return settings
    }
}

/// Which cached answers are still good.
struct FreshnessOptions: ParsableArguments {
    @Option(help: "Days a cached title stays fresh (neither recent nor old). Default 30.")
    var ttlDays: Double?

    @Option(help: "Days a recent release or a running series stays fresh. Default 7.")
    var recentTtlDays: Double?

    @Option(help: "Days after release a title counts as recent. Default 182.")
    var recentWindowDays: Double?

    @Option(help: "Days a title released long ago stays fresh. Default 90.")
    var oldTtlDays: Double?

    @Option(help: "Years after release a title counts as old. Default 10.")
    var oldAfterYears: Double?

    @Option(help: "Days a not-found answer stands before the ID is asked again. Default 30.")
    var notFoundTtlDays: Double?

    @Option(help: "Days OMDb's not-found answer for a title stands before it is asked again. Default 30.")
    var titleNotFoundTtlDays: Double?

    func validate() throws {
        try SettingFlags.check([
            .ttlDays: ttlDays, .recentTTLDays: recentTtlDays, .recentWindowDays: recentWindowDays,
            .oldTTLDays: oldTtlDays, .oldAfterYears: oldAfterYears, .notFoundTTLDays: notFoundTtlDays,
            .titleNotFoundTTLDays: titleNotFoundTtlDays,
        ])
    }

    /// The flags given, as overrides of the plan settings.
    func add(to overrides: inout PlanOverrides) {
        overrides.ttlDays = ttlDays
        overrides.recentTTLDays = recentTtlDays
        overrides.recentWindowDays = recentWindowDays
        overrides.oldTTLDays = oldTtlDays
        overrides.oldAfterYears = oldAfterYears
        overrides.notFoundTTLDays = notFoundTtlDays
        overrides.titleNotFoundTTLDays = titleNotFoundTtlDays
    }

    /// The default settings with the job file's values and then these flags applied.
    func settings(job: JobFile?) -> PlanSettings { PlanOptions.settings(job: job, add) }
}

/// The daily budget: the key's limit, the reserve kept for the apps, and when the quota day turns.
struct BudgetOptions: ParsableArguments {
    @Option(help: "OMDb's daily request limit for this key. Default 1000.")
    var dailyLimit: Int?

    @Option(help: "Percent of the daily limit left unused for the apps sharing the key. Default 5.")
    var reserve: Double?

    @Option(help: "Time zone whose midnight starts a quota day (e.g. UTC, America/Los_Angeles). Default UTC.")
    var quotaTimezone: String?

    func validate() throws {
        try SettingFlags.check([.dailyLimit: dailyLimit.map(Double.init), .reserve: reserve])
        if let quotaTimezone, TimeZone(identifier: quotaTimezone) == nil {
            throw ValidationError("--quota-timezone: unknown time zone '\(quotaTimezone)'")
        }
    }

    /// The flags given, as overrides of the plan settings.
    func add(to overrides: inout PlanOverrides) {
        overrides.dailyLimit = dailyLimit
        overrides.reservePercent = reserve
        overrides.quotaTimeZone = quotaTimezone.flatMap { TimeZone(identifier: $0) }
    }

    /// The default settings with the job file's values and then these flags applied.
    func settings(job: JobFile?) -> PlanSettings { PlanOptions.settings(job: job, add) }
}
