import FilmCacheKit
import Foundation

/// The TMDb tables, through `run`: on the store's own queue (a read-only cache's on the caller's thread).
extension SQLiteBackend {
    public func writeTMDb(_ batch: TMDbBatch) async throws(StoreError) -> TMDbWriteCounts {
        try await run { s throws(StoreError) in try s.writeTMDb(batch) }
    }

    public func tmdbStates(of imdbIDs: [String]) async throws(StoreError) -> [TMDbState] {
        try await run { s throws(StoreError) in try s.tmdbStates(of: imdbIDs) }
    }

    public func tmdbFilm(_ ref: TMDbRef) async throws(StoreError) -> TMDbFilm? {
        try await run { s throws(StoreError) in try s.tmdbFilm(ref) }
    }

    public func tmdbMapping(_ imdbID: String) async throws(StoreError) -> TMDbMapping? {
        try await run { s throws(StoreError) in try s.tmdbMapping(imdbID) }
    }

    public func markTMDbChanged(_ refs: [TMDbRef]) async throws(StoreError) -> Int {
        try await run { s throws(StoreError) in try s.markTMDbChanged(refs) }
    }

    public func tmdbChangesSyncedThrough() async throws(StoreError) -> Date? {
        try await run { s throws(StoreError) in try s.tmdbChangesSyncedThrough() }
    }

    public func setTMDbChangesSynced(through instant: Date) async throws(StoreError) {
        try await run { s throws(StoreError) in try s.setTMDbChangesSynced(through: instant) }
    }

    public func countTMDbCalls(_ calls: [String: Int], day: String) async throws(StoreError) {
        try await run { s throws(StoreError) in try s.countTMDbCalls(calls, day: day) }
    }

    public func tmdbCalls(since day: String) async throws(StoreError) -> [String: [String: Int]] {
        try await run { s throws(StoreError) in try s.tmdbCalls(since: day) }
    }

    public func tmdbCensus(staleBefore: Date) async throws(StoreError) -> TMDbCensus {
        try await run { s throws(StoreError) in try s.tmdbCensus(staleBefore: staleBefore) }
    }

    public func tmdbFilms(after ref: TMDbRef?, limit: Int) async throws(StoreError) -> [TMDbFilm] {
        try await run { s throws(StoreError) in try s.tmdbFilms(after: ref, limit: limit) }
    }

    public func tmdbMappings(after imdbID: String?, limit: Int) async throws(StoreError) -> [TMDbMapping] {
        try await run { s throws(StoreError) in try s.tmdbMappings(after: imdbID, limit: limit) }
    }
}
