import FilmCacheKit
import Foundation

/// The cache-wide census behind `filmcache stats`.
extension CacheStore {
    /// Counts every film by type, version, fetch age and freshness at `now`, and the negative answers.
    ///
    /// Freshness depends on each title's release and type as well as its fetch time, so the rows
    /// are streamed once (a few columns each, nothing kept) and judged exactly as the planner
    /// judges them. One read transaction keeps the counts consistent while a warm commits.
    public func census(
        freshness: FreshnessPolicy, now: Date, currentDataVersion: Int = FilmNormalizer.dataVersion
    ) throws(StoreError) -> CacheCensus {
        try withConnection { c throws(StoreError) in
            try c.db.transaction(deferred: true) { () throws(StoreError) in
                var census = CacheCensus()
                try c.db.prepare(
                    "SELECT fetched_at, type, year_start, year_end, released, data_version FROM films"
                ).forEach { (row) throws(StoreError) in
                    census.add(
                        fetchedAt: row.text(0).flatMap(Timestamp.parse) ?? .distantPast,
                        age: TitleAge(
                            type: row.text(1), yearStart: row.int(2), yearEnd: row.int(3), released: row.text(4)),
                        type: row.text(1), dataVersion: row.int(5) ?? 0, now: now, freshness: freshness,
                        currentDataVersion: currentDataVersion)
                }
                try c.db.prepare("SELECT status, count(*) FROM lookups GROUP BY status").forEach {
                    (row) throws(StoreError) in
                    switch LookupStatus(rawValue: row.text(0) ?? "") {
                    case .notFound?: census.notFound = row.int(1) ?? 0
                    case .failed?: census.failed = row.int(1) ?? 0
                    case nil: break
                    }
                }
                return census
            }
        }
    }
}
