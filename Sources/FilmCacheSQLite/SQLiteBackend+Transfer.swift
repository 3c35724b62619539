import FilmCacheKit
import Foundation

/// Copying a cache, through `run`: on the store's own queue (a read-only cache's on the caller's thread).
extension SQLiteBackend {
    public func rowCount(_ table: CacheTable) async throws(StoreError) -> Int {
        try await run { s throws(StoreError) in try s.rowCount(table) }
    }

    public func transferPage(_ table: CacheTable, after cursor: TransferCursor, limit: Int) async throws(StoreError)
        -> TransferPage
    {
        try await run { s throws(StoreError) in try s.transferPage(table, after: cursor, limit: limit) }
    }

    public func merge(_ page: TransferPage, now: Date) async throws(StoreError) -> ImportCounts {
        try await run { s throws(StoreError) in try s.merge(page, now: now) }
    }

    public func databaseIdentity() async throws(StoreError) -> String {
        try await run { s throws(StoreError) in try s.databaseIdentity() }
    }
}
