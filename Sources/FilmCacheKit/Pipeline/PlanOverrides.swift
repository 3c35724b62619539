import Foundation

/// Freshness and budget values as people write them (days, years, percent); each one given
/// replaces the matching ``PlanSettings`` value, each one left nil keeps it.
///
/// A job file and the command line each give one; the job's is applied first, then the flags'.
public struct PlanOverrides: Sendable, Equatable {
    /// Days a cached title stays fresh (neither recent nor old).
    public var ttlDays: Double?
    /// Days a recent release or a running series stays fresh.
    public var recentTTLDays: Double?
    /// Days after release a title counts as recent.
    public var recentWindowDays: Double?
    /// Days a title released long ago stays fresh.
    public var oldTTLDays: Double?
    /// Years after release a title counts as old.
    public var oldAfterYears: Double?
    /// Days a not-found answer stands before the ID is asked again.
    public var notFoundTTLDays: Double?
    public var titleNotFoundTTLDays: Double?
    /// OMDb's daily request limit for the key.
    public var dailyLimit: Int?
    /// Percent of the daily limit left for the apps sharing the key.
    public var reservePercent: Double?
    /// The time zone whose midnight starts a quota day.
    public var quotaTimeZone: TimeZone?

    /// No overrides.
    public init() {}

    /// Replaces the values of `settings` that this gives.
    public func apply(to settings: inout PlanSettings) {
        let day = FreshnessPolicy.day
        if let ttlDays { settings.freshness.ttl = ttlDays * day }
        if let recentTTLDays { settings.freshness.recentTTL = recentTTLDays * day }
        if let recentWindowDays { settings.freshness.recentWindow = recentWindowDays * day }
        if let oldTTLDays { settings.freshness.oldTTL = oldTTLDays * day }
        if let oldAfterYears { settings.freshness.oldAfter = oldAfterYears * 365.25 * day }
        if let notFoundTTLDays { settings.freshness.notFoundTTL = notFoundTTLDays * day }
        if let titleNotFoundTTLDays { settings.freshness.titleNotFoundTTL = titleNotFoundTTLDays * day }
        if let dailyLimit { settings.dailyLimit = dailyLimit }
        if let reservePercent { settings.reservePercent = reservePercent }
        if let quotaTimeZone { settings.quotaTimeZone = quotaTimeZone }
    }
}
