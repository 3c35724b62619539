import Foundation

/// What `filmcache stats` shows: the cache file, its census, and optionally how it covers some worklists.
public struct CacheStats: Sendable, Equatable {
    /// The database file, or the URL of a database on a server.
    public var databasePath: String
    /// Whether the file exists (an absent one is reported as an empty cache, not created).
    package var databaseExists: Bool
    /// Whether the database is on a server (PostgreSQL), not in a file.
    package var onServer: Bool
    /// Bytes of the database file; on a server, of the cache's tables with their indexes.
    package var databaseBytes: Int
    /// Bytes of its write-ahead log (`-wal`), 0 when there is none.
    package var walBytes: Int
    /// Cache-wide counts.
    public var census: CacheCensus
    /// The policy the census judged freshness by.
    public var freshness: FreshnessPolicy
    /// The normalizer version rows must carry to count as current.
    public var currentDataVersion: Int
    /// The plan for the given worklists, `nil` when none was given.
    public var worklists: NightPlan?
    /// When the stats were taken.
    public var now: Date
    /// TMDb's side of the cache; `nil` when it holds nothing of TMDb's (no TMDb section is shown).
    public var tmdb: TMDbStats?

    /// Bytes on disk: the database and its write-ahead log.
    package var fileBytes: Int { databaseBytes + walBytes }

    /// Takes the stats of the cache named `database` through `store` at `now`, planning `worklist`
    /// if given. A cache in a file (`file`, its path) has its existence and sizes read from disk; a
    /// server's database exists when it has the schema (`store` then sizes its tables).
    ///
    /// With `tmdb`, TMDb's side is read too, entries older than `tmdbTTL` counting as stale.
    public static func load(
        store: any StatsStore, database: String, file: String?, settings: PlanSettings, worklist: Worklist?,
        now: Date, tmdb: (any TMDbStore)? = nil,
        tmdbTTL: TimeInterval = Setting.tmdbTTLDays.default * FreshnessPolicy.day
    ) async throws(StoreError) -> CacheStats {
        let files = FileManager.default
        func size(_ path: String) -> Int {
            ((try? files.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        }
        let census = try await store.census(freshness: settings.freshness, now: now)
        // A server sizes its tables; a file is measured on disk (its backend returns nil).
        let stored = try await store.storedBytes()
        var night: NightPlan?
        if let worklist {
            night = try await NightPlan.make(
                worklist: worklist, store: store, settings: settings, keyFingerprint: nil, now: now)
        }
        var tmdbStats: TMDbStats?
        if let tmdb {
            tmdbStats = try await TMDbStats.load(store: tmdb, ttl: tmdbTTL, now: now)
            if tmdbStats?.hasData == false { tmdbStats = nil }
        }
        return CacheStats(
            // A server's database with no schema is read as an empty cache, which sizes nothing.
            databasePath: database,
            databaseExists: file.map { files.fileExists(atPath: $0) } ?? (stored != nil),
            onServer: file == nil, databaseBytes: stored ?? file.map { size($0) } ?? 0,
            walBytes: file.map { size($0 + "-wal") } ?? 0, census: census,
            freshness: settings.freshness, currentDataVersion: FilmNormalizer.dataVersion, worklists: night, now: now,
            tmdb: tmdbStats)
    }
}
