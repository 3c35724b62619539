import CSQLite
import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

@Suite struct CacheStoreTests {
    let dir = TemporaryDirectory()
    var path: String { dir.file("cache.sqlite") }

    @Test func upsertedFilmReadsBackIdentically() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        let film = SampleFilms.film("tt0172495")
        try store.write(WriteBatch(films: [film]))
        #expect(try store.film("tt0172495") == film)
        #expect(try store.film("tt9999999") == nil)

        var updated = film
        updated.title = "Gladiator (Extended)"
        updated.genres = ["Drama"]
        updated.ratings = []
        updated.boxOfficeUSD = nil
        try store.write(WriteBatch(films: [updated]))
        #expect(try store.film("tt0172495") == updated)
        #expect(try store.filmCount() == 1)
    }

    @Test func filesAreWALAndListColumnsQueryableWithJSONEach() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        try store.write(
            WriteBatch(films: [SampleFilms.film("tt0000001"), SampleFilms.film("tt0000002", title: "Other")]))
        let db = try SQLiteConnection(path: path, readOnly: true)
        #expect(try db.prepare("PRAGMA journal_mode").query { $0.text(0) } == ["wal"])
        let dramas = try db.prepare(
            "SELECT f.imdb_id FROM films f, json_each(f.genres) g WHERE g.value = 'Drama' ORDER BY 1"
        ).query { $0.text(0) }
        #expect(dramas == ["tt0000001", "tt0000002"])
        let scores = try db.prepare(
            "SELECT json_extract(r.value, '$.score') FROM films f, json_each(f.ratings) r"
                + " WHERE f.imdb_id = 'tt0000001' AND json_extract(r.value, '$.source') = 'Rotten Tomatoes'"
        ).query { $0.int(0) }
        #expect(scores == [80])
    }

    @Test func aFilmClearsItsNegativeEntry() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let miss = LookupRecord(
            imdbID: "tt0000001", status: .failed, message: "HTTP 503", httpStatus: 503, attemptedAt: now,
            nextAttemptAt: now + 3600)
        try store.write(WriteBatch(lookups: [miss]))
        try store.write(WriteBatch(lookups: [miss]))
        #expect(try store.lookup("tt0000001")?.attempts == 2)
        #expect(try store.lookup("tt0000001")?.nextAttemptAt == now + 3600)
        try store.write(WriteBatch(films: [SampleFilms.film("tt0000001")]))
        #expect(try store.lookup("tt0000001") == nil)
    }

    /// A plan that fails inside its transaction leaves the store able to plan again: the temporary tables
    /// a plan fills are made outside it, so its rollback does not take them away.
    @Test func aPlanThatFailsInItsTransactionLeavesTheStoreAbleToPlan() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        let other = try SQLiteConnection(path: path)
        // The plan's join reads `demand`: without it, the plan fails after its worklist is loaded.
        try other.execute("ALTER TABLE demand RENAME TO demand_aside")
        #expect(throws: StoreError.self) { try store.states(of: ["tt0000001"]) }
        try other.execute("ALTER TABLE demand_aside RENAME TO demand")
        #expect(try store.states(of: ["tt0000001", "tt0000002"]).map(\.imdbID) == ["tt0000001", "tt0000002"])
    }

    @Test func statesComeBackInWorklistOrderWithWhatTheCacheKnows() throws {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        let fetched = Date(timeIntervalSince1970: 1_700_000_000)
        try store.write(
            WriteBatch(
                films: [SampleFilms.film("tt0000002", fetchedAt: fetched)],
                lookups: [
                    LookupRecord(
                        imdbID: "tt0000003", status: .notFound, message: "Incorrect IMDb ID.", httpStatus: 200,
                        attemptedAt: fetched, nextAttemptAt: fetched + 86_400)
                ]))
        let states = try store.states(of: ["tt0000003", "tt0000001", "tt0000002"])
        #expect(states.map(\.imdbID) == ["tt0000003", "tt0000001", "tt0000002"])
        #expect(states[0].lookupStatus == .notFound && states[0].nextAttemptAt == fetched + 86_400)
        #expect(states[1].fetchedAt == nil && states[1].lookupStatus == nil)
        #expect(states[2].fetchedAt == fetched && states[2].dataVersion == FilmNormalizer.dataVersion)
        // The temporary table is emptied, so a second plan sees only its own IDs.
        #expect(try store.states(of: ["tt0000002"]).count == 1)
    }

    @Test func reopeningKeepsRowsAndANewerSchemaIsRefused() throws {
        do {
            let store = try CacheStore(path: path, logger: SampleFilms.logger)
            try store.write(WriteBatch(films: [SampleFilms.film("tt0000001")]))
        }
        let reopened = try CacheStore(path: path, logger: SampleFilms.logger)
        #expect(try reopened.filmCount() == 1)
        #expect(try reopened.schemaVersion() == Schema.currentVersion)

        let newer = dir.file("newer.sqlite")
        let db = try SQLiteConnection(path: newer)
        try db.execute("PRAGMA user_version = \(Schema.currentVersion + 1)")
        #expect {
            try CacheStore(path: newer, logger: SampleFilms.logger)
        } throws: { error in
            "\(error)".contains("newer than this filmcache supports")
        }
    }

    @Test func notADatabaseIsAClearError() throws {
        let junk = dir.write("junk.sqlite", String(repeating: "this is not sqlite\n", count: 100))
        #expect {
            try CacheStore(path: junk, logger: SampleFilms.logger)
        } throws: { error in
            "\(error)".contains(junk) && "\(error)".contains("not a database")
        }
        #expect(try String(contentsOfFile: junk, encoding: .utf8).hasPrefix("this is not sqlite"))
    }
}
