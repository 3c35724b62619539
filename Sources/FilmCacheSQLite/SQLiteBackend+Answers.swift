import FilmCacheKit
import Foundation

/// What `filmcache serve` keeps beside the films, through `run`: on the store's own queue (a read-only cache's on the caller's thread).
extension SQLiteBackend {
    public func answer(for query: String) async throws(StoreError) -> CachedAnswer? {
        try await run { s throws(StoreError) in try s.answer(for: query) }
    }

    public func storeAnswers(_ answers: [CachedAnswer]) async throws(StoreError) {
        try await run { s throws(StoreError) in try s.storeAnswers(answers) }
    }

    public func recordDemand(_ counts: [String: Int], at instant: Date) async throws(StoreError) {
        try await run { s throws(StoreError) in try s.recordDemand(counts, at: instant) }
    }

    public func demand(of ids: [String]) async throws(StoreError) -> [String: Int] {
        try await run { s throws(StoreError) in try s.demand(of: ids) }
    }

    public func mostRequested(limit: Int) async throws(StoreError) -> [DemandEntry] {
        try await run { s throws(StoreError) in try s.mostRequested(limit: limit) }
    }
}
