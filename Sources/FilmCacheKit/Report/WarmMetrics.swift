import Foundation

/// What the metrics file says about one warm: how it ended, what it did, and the quota after it.
public struct WarmMetrics: Sendable, Equatable {
    /// When the run ended.
    public var finishedAt: Date
    /// How long it took, in seconds.
    public var duration: Double
    /// The exit status the run ends with (0 done, 75 stopped early, others errors).
    public var exitStatus: Int32
    /// What the run did; `nil` when it aborted with an error before summing up.
    public var summary: WarmSummary?
    /// When the latest completed run (exit 0 or 75) ended, this one included; `nil` if none ever has.
    package var lastSuccessAt: Date?
    /// The key's quota after the run; `nil` when the database could not be read.
    public var quota: QuotaStatus?
    /// TMDb's entries and mappings after the run; `nil` when the cache holds none.
    public var tmdbCensus: TMDbCensus?
    /// The end of the latest changes feed window a warm read to the last page.
    public var tmdbFeedSyncedThrough: Date?

    /// Metrics from parts already in hand.
    public init(
        finishedAt: Date, duration: Double, exitStatus: Int32, summary: WarmSummary?, lastSuccessAt: Date?,
        quota: QuotaStatus?
    ) {
        self.finishedAt = finishedAt
        self.duration = duration
        self.exitStatus = exitStatus
        self.summary = summary
        self.lastSuccessAt = lastSuccessAt
        self.quota = quota
    }

    /// The metrics of the run that just ended, reading the last success and the quota back from `store`.
    ///
    /// The last success comes from the `runs` table, so a run that failed keeps the previous value.
    /// With `tmdb`, TMDb's entries are counted too (when the cache holds any).
    public static func read(
        from store: any QuotaReportStore, summary: WarmSummary?, exitStatus: Int32, duration: Duration,
        keyFingerprint: String, settings: PlanSettings, now: Date, tmdb: (any TMDbStore)? = nil
    ) async throws(StoreError) -> WarmMetrics {
        var metrics = WarmMetrics(
            finishedAt: now, duration: duration.inSeconds, exitStatus: exitStatus, summary: summary,
            lastSuccessAt: try await store.lastCompletedRunFinish(),
            quota: try await QuotaStatus.load(
                store: store, keyFingerprint: keyFingerprint, settings: settings, dailyLimit: settings.dailyLimit,
                now: now, days: 1))
        if let tmdb { try await metrics.readTMDb(from: tmdb, now: now) }
        return metrics
    }

    /// The metrics of a warm of TMDb alone, which spends no OMDb call and keeps no run record: no
    /// quota, and the run itself as the last success when it ended 0 or 75.
    public static func readTMDbOnly(
        from store: any TMDbStore, summary: WarmSummary, exitStatus: Int32, duration: Duration, now: Date
    ) async throws(StoreError) -> WarmMetrics {
        var metrics = WarmMetrics(
            finishedAt: now, duration: duration.inSeconds, exitStatus: exitStatus, summary: summary,
            lastSuccessAt: exitStatus == 0 || exitStatus == 75 ? now : nil, quota: nil)
        try await metrics.readTMDb(from: store, now: now)
        return metrics
    }

    /// TMDb's entries and the feed's progress, when the cache holds any.
    private mutating func readTMDb(from tmdb: any TMDbStore, now: Date) async throws(StoreError) {
        // Staleness is not published, so any bound will do.
        let census = try await tmdb.tmdbCensus(staleBefore: now)
        if census.entries + census.mapped + census.notOnTMDb > 0 { tmdbCensus = census }
        tmdbFeedSyncedThrough = try await tmdb.tmdbChangesSyncedThrough()
    }
}
