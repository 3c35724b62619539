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

    /// Whether the file has `films`' `fetched_at` index, as another connection (an app's) sees it.
    func hasFetchedAtIndex() throws -> Bool {
        try CacheStore.hasFetchedAtIndex(try SQLiteConnection.reader(path: path))
    }

    /// The index plan of a read by fetch time, as SQLite would run it on another connection.
    func readByFetchTime() throws -> String {
        try SQLiteConnection.reader(path: path).prepare(
            "EXPLAIN QUERY PLAN SELECT count(*) FROM films WHERE fetched_at >= '2020'"
        ).query { $0.text(3) ?? "" }.joined(separator: "; ")
    }

    @Test func anEmptyCachesFetchTimeIndexIsBuiltOnceAfterTheImport() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        #expect(try hasFetchedAtIndex())
        try store.beginImport()
        #expect(try !hasFetchedAtIndex(), "set aside while the films come in")
        let films = (1...300).map {
            SampleFilms.film(String(format: "tt%07d", $0), title: "F\($0)", fetchedAt: old + Double($0 * 7919 % 300))
        }
        #expect(try store.importFilms(films, now: Date()) == counts(added: 300))
        #expect(try store.filmCount() == 300)
        #expect(try !hasFetchedAtIndex(), "not built film by film")
        try store.finishImport()
        #expect(try hasFetchedAtIndex())
        let plan = try readByFetchTime()
        #expect(plan.contains("films_fetched_at"), "\(plan)")
        // Finishing again, or with nothing set aside, changes nothing.
        try store.finishImport()
        #expect(try hasFetchedAtIndex())
    }

    @Test func aCacheHoldingFilmsKeepsItsIndexThroughAnImport() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        _ = try store.importFilms([SampleFilms.film("tt0000001", title: "A", fetchedAt: old)], now: Date())
        try store.beginImport()
        #expect(try hasFetchedAtIndex(), "a cache with films keeps its index: the import may be small")
        _ = try store.importFilms([SampleFilms.film("tt0000002", title: "B", fetchedAt: new)], now: Date())
        #expect(try hasFetchedAtIndex())
        try store.finishImport()
        #expect(try hasFetchedAtIndex())
    }

    @Test func anImportStoppedBeforeItsEndHasItsIndexBuiltByTheNextWritersOpen() throws {
        do {
            let store = try CacheStore(path: path, logger: SampleFilms.logger)
            try store.beginImport()
            _ = try store.importFilms([SampleFilms.film("tt0000001", title: "A", fetchedAt: old)], now: Date())
            // No finishImport: the process was killed here.
        }
        #expect(try !hasFetchedAtIndex())
        // A reader's open changes nothing (it may not write); its reads by fetch time stay right.
        let reader = try CacheStore(path: path, logger: SampleFilms.logger, readOnly: true)
        #expect(try reader.filmCount() == 1)
        #expect(try !hasFetchedAtIndex())
        _ = try CacheStore(path: path, logger: SampleFilms.logger)
        #expect(try hasFetchedAtIndex())
        #expect(try readByFetchTime().contains("films_fetched_at"))
    }
}
