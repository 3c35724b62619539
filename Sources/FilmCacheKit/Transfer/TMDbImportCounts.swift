import Foundation

/// What an import did with TMDb's lines: entries and mappings the cache did not hold (added), held
/// stamped earlier (updated), or held as new or newer (kept).
public struct TMDbImportCounts: Sendable, Equatable {
    public var entriesAdded = 0
    public var entriesUpdated = 0
    public var entriesKept = 0
    public var mappingsAdded = 0
    public var mappingsUpdated = 0
    public var mappingsKept = 0

    /// Nothing imported yet.
    public init() {}

    /// Entry lines imported, whatever the cache did with them.
    public var entries: Int { entriesAdded + entriesUpdated + entriesKept }
    /// Mapping lines imported, whatever the cache did with them.
    public var mappings: Int { mappingsAdded + mappingsUpdated + mappingsKept }

    /// Adds `other`'s counts to these.
    public static func += (counts: inout TMDbImportCounts, other: TMDbImportCounts) {
        counts.entriesAdded += other.entriesAdded
        counts.entriesUpdated += other.entriesUpdated
        counts.entriesKept += other.entriesKept
        counts.mappingsAdded += other.mappingsAdded
        counts.mappingsUpdated += other.mappingsUpdated
        counts.mappingsKept += other.mappingsKept
    }

    /// Writes `batch` (newer wins) into `store` in one transaction and counts what it did.
    ///
    /// The store says what it wrote and what it kept; what it added is the growth of its census
    /// around the write, the rest of what it wrote being updates. A process writing TMDb at the same
    /// time can blur that split, never the totals.
    static func write(_ batch: TMDbBatch, to store: any TMDbStore, now: Date) async throws(StoreError)
        -> TMDbImportCounts
    {
        let before = try await store.tmdbCensus(staleBefore: now)
        let written = try await store.writeTMDb(batch)
        let after = try await store.tmdbCensus(staleBefore: now)
        var counts = TMDbImportCounts()
        counts.entriesAdded = min(max(0, after.entries - before.entries), written.films)
        counts.entriesUpdated = written.films - counts.entriesAdded
        counts.entriesKept = written.filmsKept
        let mappingsBefore = before.mapped + before.notOnTMDb
        counts.mappingsAdded = min(max(0, after.mapped + after.notOnTMDb - mappingsBefore), written.mappings)
        counts.mappingsUpdated = written.mappings - counts.mappingsAdded
        counts.mappingsKept = written.mappingsKept
        return counts
    }

    /// The block `import` prints after its own when TMDb lines were read.
    public static func report(_ counts: TMDbImportCounts) -> String {
        let rows: [(String, Int, String)] = [
            ("added", counts.entriesAdded, "TMDb entries the cache did not hold"),
            ("updated", counts.entriesUpdated, "newer than the cached entry, which they replaced"),
            ("kept", counts.entriesKept, "the cache already held them as new or newer"),
            ("mappings", counts.mappings, "IMDb IDs to TMDb entries (or to none):"),
            ("  added", counts.mappingsAdded, "the cache did not hold"),
            ("  updated", counts.mappingsUpdated, "checked later than the cached one"),
            ("  kept", counts.mappingsKept, "the cache already held them as new or newer"),
        ]
        return "TMDb\n" + TextTable.counts(rows, labelWidth: 14)
    }
}
