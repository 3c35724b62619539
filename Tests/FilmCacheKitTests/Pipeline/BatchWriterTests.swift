import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// The batch writer commits by count and by age, so a slow run never holds a whole batch of paid answers.
struct BatchWriterTests {
    /// Polls the store until it holds `count` films or two seconds pass.
    func waitForFilms(_ count: Int, in store: CacheStore) async throws -> Int {
        for _ in 0..<200 {
            if try store.filmCount() == count { return count }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try store.filmCount()
    }

    @Test func aLoneResultIsCommittedOnceItHasWaitedTheIntervalAndNotBefore() async throws {
        let dir = TemporaryDirectory()
        let store = try CacheStore(path: dir.file("cache.sqlite"), logger: SampleFilms.logger)
        let clock = ManualClock()
        let writer = BatchWriter(
            store: SQLiteBackend(store: store), batchSize: 256, commitInterval: .seconds(1), clock: clock)
        try await writer.add(SampleFilms.film("tt0172495"))
        clock.advance(by: .milliseconds(900))
        await writer.tick()
        try await Task.sleep(for: .milliseconds(100))
        #expect(try store.filmCount() == 0, "younger than the interval: still pending")
        clock.advance(by: .milliseconds(100))
        await writer.tick()
        #expect(try await waitForFilms(1, in: store) == 1, "committed by age, with no flush")
    }

    @Test func anAddAfterTheIntervalCommitsTheAgedBatchWithoutATick() async throws {
        let dir = TemporaryDirectory()
        let store = try CacheStore(path: dir.file("cache.sqlite"), logger: SampleFilms.logger)
        let clock = ManualClock()
        let writer = BatchWriter(
            store: SQLiteBackend(store: store), batchSize: 256, commitInterval: .seconds(1), clock: clock)
        try await writer.add(SampleFilms.film("tt0172495"))
        clock.advance(by: .seconds(2))
        try await writer.add(SampleFilms.film("tt0120338"))
        #expect(try await waitForFilms(2, in: store) == 2)
    }
}
