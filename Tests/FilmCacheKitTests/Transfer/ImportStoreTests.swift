import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// Imports into a real SQLite file: the newer `fetched_at` wins, and importing again changes nothing.
@Suite struct ImportStoreTests {
    let dir = TemporaryDirectory()
    var path: String { dir.file("cache.sqlite") }
    let old = Date(timeIntervalSince1970: 1_700_000_000)
    var new: Date { old + 86_400 }

    func counts(added: Int = 0, updated: Int = 0, kept: Int = 0) -> ImportCounts {
        var counts = ImportCounts()
        counts.added = added
        counts.updated = updated
        counts.kept = kept
        return counts
    }

    @Test func newerWinsAndEqualOrOlderIsKept() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        let a = SampleFilms.film("tt0000001", title: "A", fetchedAt: old)
        let b = SampleFilms.film("tt0000002", title: "B", fetchedAt: new)
        #expect(try store.importFilms([a, b], now: Date()) == counts(added: 2))
        #expect(try store.importFilms([a, b], now: Date()) == counts(kept: 2), "idempotent")

        let newerA = SampleFilms.film("tt0000001", title: "A, newer", fetchedAt: new)
        let olderB = SampleFilms.film("tt0000002", title: "B, older", fetchedAt: old)
        let sameTimeB = SampleFilms.film("tt0000002", title: "B, same time", fetchedAt: new)
        #expect(try store.importFilms([newerA, olderB, sameTimeB], now: Date()) == counts(updated: 1, kept: 2))
        #expect(try store.film("tt0000001") == newerA)
        #expect(try store.film("tt0000002") == b)
        #expect(try store.filmCount() == 2)
    }

    @Test func twoLinesForOneIDKeepTheNewer() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        let newer = SampleFilms.film("tt0000001", title: "newer", fetchedAt: new)
        let older = SampleFilms.film("tt0000001", title: "older", fetchedAt: old)
        #expect(try store.importFilms([newer, older], now: Date()) == counts(added: 1, kept: 1))
        #expect(try store.film("tt0000001") == newer)
    }

    @Test func anIDTheCacheLackedIsAddedOnceAndItsNewerSecondLineUpdatesIt() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        let older = SampleFilms.film("tt0000001", title: "older", fetchedAt: old)
        let newer = SampleFilms.film("tt0000001", title: "newer", fetchedAt: new)
        let other = SampleFilms.film("tt0000002", title: "other", fetchedAt: old)
        #expect(
            try store.importFilms([older, other, newer, other], now: Date()) == counts(added: 2, updated: 1, kept: 1))
        #expect(try store.film("tt0000001") == newer)
        // Held now: the same lines again change nothing.
        #expect(try store.importFilms([older, newer, other], now: Date()) == counts(kept: 3))
    }

    @Test func aCachedFilmStampedInTheFutureIsReplacedByAnyImportedOne() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let future = SampleFilms.film("tt0000001", title: "future", fetchedAt: now + 30 * 86_400)
        _ = try store.importFilms([future], now: future.lastFetched)
        let plain = SampleFilms.film("tt0000001", title: "plain", fetchedAt: now - 86_400)
        #expect(try store.importFilms([plain], now: now) == counts(updated: 1))
        #expect(try store.film("tt0000001") == plain)
    }

    @Test func aFilmThatLandsClearsItsLookupAndAlias() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        try store.write(
            WriteBatch(
                films: [SampleFilms.film("tt0000009")],
                lookups: [
                    LookupRecord(
                        imdbID: "tt0000001", status: .notFound, message: "Movie not found!", httpStatus: 200,
                        attemptedAt: old, nextAttemptAt: new)
                ], aliases: [FilmAlias(askedID: "tt0000002", imdbID: "tt0000009", recordedAt: old)]))
        _ = try store.importFilms(
            [
                SampleFilms.film("tt0000001", fetchedAt: new), SampleFilms.film("tt0000002", fetchedAt: new),
            ], now: Date())
        #expect(try store.lookup("tt0000001") == nil)
        #expect(try store.aliasTarget(of: "tt0000002") == nil)
    }
}
