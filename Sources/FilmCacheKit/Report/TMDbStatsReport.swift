import Foundation

/// What `filmcache stats` shows of TMDb's side of the cache: the entries and mappings counted, the
/// calls made lately and how far the changes feed was read.
public struct TMDbStats: Sendable, Equatable {
    /// The entries and mappings, counted with ``ttl``.
    public var census: TMDbCensus
    /// How long an entry stays fresh unless the changes feed names it (`tmdb_ttl_days`).
    public var ttl: TimeInterval
    /// The UTC day the stats were taken on, `2026-11-21`.
    public var today: String
    /// TMDb calls counted today.
    public var callsToday: Int
    /// TMDb calls counted over the last seven UTC days, today included.
    public var callsLastWeek: Int
    /// The end of the latest changes feed window a warm read to the last page.
    public var feedSyncedThrough: Date?

    /// Stats from parts already in hand.
    public init(
        census: TMDbCensus, ttl: TimeInterval, today: String, callsToday: Int, callsLastWeek: Int,
        feedSyncedThrough: Date?
    ) {
        self.census = census
        self.ttl = ttl
        self.today = today
        self.callsToday = callsToday
        self.callsLastWeek = callsLastWeek
        self.feedSyncedThrough = feedSyncedThrough
    }

    /// Reads TMDb's side of `store` at `now`, entries older than `ttl` counting as stale.
    public static func load(store: any TMDbStore, ttl: TimeInterval, now: Date) async throws(StoreError) -> TMDbStats {
        let census = try await store.tmdbCensus(staleBefore: now.addingTimeInterval(-ttl))
        let today = TMDbFilmText.day(now)
        let calls = try await store.tmdbCalls(since: TMDbFilmText.day(now.addingTimeInterval(-6 * FreshnessPolicy.day)))
        func total(_ kinds: [String: Int]?) -> Int { kinds?.values.reduce(0, +) ?? 0 }
        return TMDbStats(
            census: census, ttl: ttl, today: today, callsToday: total(calls[today]),
            callsLastWeek: calls.values.map(total).reduce(0, +),
            feedSyncedThrough: try await store.tmdbChangesSyncedThrough())
    }

    /// Whether the cache holds anything of TMDb's: an entry, a mapping, a call counted or the feed read.
    public var hasData: Bool {
        census.entries + census.mapped + census.notOnTMDb + callsLastWeek > 0 || feedSyncedThrough != nil
    }
}

/// Renders ``TMDbStats`` as the TMDb section of `filmcache stats` and its `"tmdb"` JSON object.
enum TMDbStatsReport {
    /// The section, starting with its heading, without a trailing newline.
    static func text(_ t: TMDbStats) -> String {
        let c = t.census
        let ttl = TextTable.decimal(t.ttl / FreshnessPolicy.day) + " d"
        var out = "TMDb (TTL \(ttl) unless TMDb's changes feed names an entry sooner)\n"
        out += TextTable.counts(
            [
                ("entries", c.entries, "movies \(c.movies), series \(c.series)"),
                ("stale", c.stale, "fetched more than \(ttl) ago: a warm reading TMDb refreshes them"),
                ("changed", c.changed, "named by TMDb's changes feed since their fetch: due at the next warm"),
                ("mapped", c.mapped, "IMDb IDs TMDb's /find matched to an entry"),
                ("not on TMDb", c.notOnTMDb, "IMDb IDs /find found no entry for"),
                ("calls today", t.callsToday, "TMDb calls counted on \(t.today) (UTC)"),
                ("calls, 7 days", t.callsLastWeek, "TMDb calls counted over the last 7 days, today included"),
            ], labelWidth: 16)
        out += "\n  changes feed read through "
        out += t.feedSyncedThrough.map(Timestamp.format) ?? "never (the first warm reading TMDb starts it)"
        return out
    }

    /// The section as JSON.
    static func document(_ t: TMDbStats) -> Document {
        let c = t.census
        return Document(
            entries: c.entries, movies: c.movies, series: c.series, stale: c.stale, changed: c.changed,
            mapped: c.mapped, notOnTMDb: c.notOnTMDb, ttlDays: t.ttl / FreshnessPolicy.day, callsToday: t.callsToday,
            callsLast7Days: t.callsLastWeek, changesSyncedThrough: ReportJSON.instant(t.feedSyncedThrough))
    }

    /// The `"tmdb"` object of `stats --json`.
    struct Document: Encodable {
        var entries, movies, series, stale, changed, mapped, notOnTMDb: Int
        var ttlDays: Double
        var callsToday, callsLast7Days: Int
        @Nullable var changesSyncedThrough: String?
    }
}
