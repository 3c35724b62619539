import ArgumentParser
import FilmCacheKit
import Foundation

/// Flags that shape a plan: freshness and the daily budget. Shared by `warm`, `plan` and `stats`.
///
/// Every flag is optional so that a job file's value stands unless the flag is given.
struct PlanOptions: ParsableArguments {
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

    @Option(help: "OMDb's daily request limit for this key. Default 1000.")
    var dailyLimit: Int?

    @Option(help: "Percent of the daily limit left unused for the apps sharing the key. Default 5.")
    var reserve: Double?

    @Option(help: "Time zone whose midnight starts a quota day (e.g. UTC, America/Los_Angeles). Default UTC.")
    var quotaTimezone: String?

    func validate() throws {
        for (flag, value) in [
            ("--ttl-days", ttlDays), ("--recent-ttl-days", recentTtlDays), ("--recent-window-days", recentWindowDays),
            ("--old-ttl-days", oldTtlDays), ("--old-after-years", oldAfterYears),
            ("--not-found-ttl-days", notFoundTtlDays),
        ] {
            if let value, !(value >= 0) { throw ValidationError("\(flag) cannot be negative") }
        }
        if let dailyLimit, dailyLimit < 0 { throw ValidationError("--daily-limit cannot be negative") }
        if let reserve, !(0..<100).contains(reserve) { throw ValidationError("--reserve must be 0 to 99 percent") }
        if let quotaTimezone, TimeZone(identifier: quotaTimezone) == nil {
            throw ValidationError("--quota-timezone: unknown time zone '\(quotaTimezone)'")
        }
    }

    /// The flags given, as overrides of the plan settings.
    var overrides: PlanOverrides {
        var overrides = PlanOverrides()
        overrides.ttlDays = ttlDays
        overrides.recentTTLDays = recentTtlDays
        overrides.recentWindowDays = recentWindowDays
        overrides.oldTTLDays = oldTtlDays
        overrides.oldAfterYears = oldAfterYears
        overrides.notFoundTTLDays = notFoundTtlDays
        overrides.dailyLimit = dailyLimit
        overrides.reservePercent = reserve
        overrides.quotaTimeZone = quotaTimezone.flatMap { TimeZone(identifier: $0) }
        return overrides
    }

    /// Applies the job file's values, then the flags given over them.
    func apply(to settings: inout PlanSettings, job: JobFile?) {
        job?.plan.apply(to: &settings)
        overrides.apply(to: &settings)
    }

    /// The default settings with the job file's values and then the flags given applied.
    func settings(job: JobFile?) -> PlanSettings {
        var settings = PlanSettings()
        apply(to: &settings, job: job)
        return settings
    }
}
