import Foundation
import Synchronization
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

    /// Batches fill faster than they commit: at most `concurrentCommits` commits run at once, as
    /// many as that do, and every film lands by the flush.
    @Test(arguments: [1, 2])
    func commitsOverlapUpToTheirLimitAndAllLand(_ concurrentCommits: Int) async throws {
        let dir = TemporaryDirectory()
        let store = try CacheStore(path: dir.file("cache.sqlite"), logger: SampleFilms.logger)
        let slow = SlowWrites(SQLiteBackend(store: store), until: concurrentCommits)
        let writer = BatchWriter(
            store: slow, batchSize: 4, concurrentCommits: concurrentCommits, commitInterval: .seconds(60),
            clock: ContinuousClock())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for n in 0..<5 { try await writer.add(SampleFilms.film(String(format: "tt%07d", worker * 10 + n))) }
                }
            }
            try await group.waitForAll()
        }
        try await writer.flush()
        #expect(try store.filmCount() == 40)
        #expect(slow.mostAtOnce == concurrentCommits)
    }
}

/// A store whose writes each wait until `until` run at once (at most ten seconds), counting how many do.
private final class SlowWrites: FilmStore {
    private let store: any FilmStore
    private let until: Int
    private let counts = Mutex((now: 0, most: 0))

    init(_ store: any FilmStore, until: Int) {
        self.store = store
        self.until = until
    }

    var mostAtOnce: Int { counts.withLock { $0.most } }

    func write(_ batch: WriteBatch) async throws(StoreError) {
        counts.withLock { counts in
            counts.now += 1
            counts.most = max(counts.most, counts.now)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while counts.withLock({ $0.most }) < until, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        defer { counts.withLock { $0.now -= 1 } }
        try await store.write(batch)
    }

    func film(_ imdbID: String) async throws(StoreError) -> IMDBFilm? { try await store.film(imdbID) }
    func films(_ imdbIDs: [String]) async throws(StoreError) -> [IMDBFilm] { try await store.films(imdbIDs) }
    func lookup(_ imdbID: String) async throws(StoreError) -> LookupEntry? { try await store.lookup(imdbID) }
    func aliasTarget(of imdbID: String) async throws(StoreError) -> String? { try await store.aliasTarget(of: imdbID) }
    func filmCount() async throws(StoreError) -> Int { try await store.filmCount() }
    func states(of ids: [String]) async throws(StoreError) -> [CachedState] { try await store.states(of: ids) }
    func importFilms(_ films: [IMDBFilm], now: Date) async throws(StoreError) -> ImportCounts {
        try await store.importFilms(films, now: now)
    }
    func films(after afterID: String, limit: Int, since: Date?) async throws(StoreError) -> [IMDBFilm] {
        try await store.films(after: afterID, limit: limit, since: since)
    }
}
