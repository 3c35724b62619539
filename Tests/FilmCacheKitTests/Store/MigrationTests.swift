import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

@Suite struct MigrationTests {
    let dir = TemporaryDirectory()
    var path: String { dir.file("old.sqlite") }

    /// A cache file as filmcache 0.1 left it: schema version 1, with films, lookups, ledger and runs.
    func makeVersion1File() throws {
        let db = try SQLiteConnection(path: path)
        try db.execute("PRAGMA journal_mode = WAL")
        try db.execute(Schema.sql(for: .createCache))
        try db.execute(
            """
            INSERT INTO films (imdb_id, title, type, year_start, genres, writers, ratings, raw_json, fetched_at,
                               data_version)
            VALUES ('tt0172495', 'Gladiator', 'movie', 2000, '["Action","Adventure","Drama"]',
                    '[{"name":"David Franzoni","role":"story"}]',
                    '[{"source":"Rotten Tomatoes","value":"80%","score":80}]', '{"Response":"True"}',
                    '2026-10-01T03:00:00Z', 1),
                   ('tt0133093', 'The Matrix', 'movie', 1999, '["Action","Sci-Fi"]', '[]', '[]', '{}',
                    '2026-11-01T03:00:00Z', 1);
            INSERT INTO lookups VALUES ('tt9999999', 'not_found', 'Incorrect IMDb ID.', 200, 1,
                                        '2026-11-01T03:00:00Z', '2026-11-01T03:00:00Z', '2026-12-01T03:00:00Z');
            INSERT INTO quota_ledger (key_fingerprint, quota_day, used, daily_limit) VALUES ('ab12', '2026-11-01', 3, 1000);
            INSERT INTO runs (started_at, key_fingerprint, fetched, calls, outcome)
                VALUES ('2026-11-01T03:00:00Z', 'ab12', 2, 3, 'done');
            PRAGMA user_version = 1;
            """)
    }

    @Test func aReadOnlyOpenNeverMigratesAnOlderFileNorSetsUpAForeignOne() throws {
        try makeVersion1File()
        #expect {
            _ = try CacheStore(path: path, logger: SampleFilms.logger, readOnly: true)
        } throws: { error in
            "\(error)".contains("older than this filmcache's") && "\(error)".contains("run a warm")
        }
        #expect(
            try SQLiteConnection(path: path, readOnly: true).prepare("PRAGMA user_version").query { $0.int(0) } == [1])
        // Another program's database: refused, and left as it was.
        let foreign = dir.file("notes.sqlite")
        try SQLiteConnection(path: foreign).execute("CREATE TABLE notes (body TEXT)")
        #expect {
            _ = try CacheStore(path: foreign, logger: SampleFilms.logger, readOnly: true)
        } throws: { error in "\(error)".contains("no filmcache schema") }
        let tables = try SQLiteConnection(path: foreign, readOnly: true).prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
        ).query { $0.text(0) }
        #expect(tables == ["notes"])
    }

    @Test func aVersion1FileUpgradesInPlaceKeepingEveryRow() throws {
        try makeVersion1File()
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        #expect(try store.schemaVersion() == Schema.currentVersion)
        #expect(try store.filmCount() == 2)
        #expect(try store.film("tt0172495")?.title == "Gladiator")
        #expect(try store.lookup("tt9999999")?.status == .notFound)
        #expect(try store.ledger(key: "ab12", day: "2026-11-01")?.used == 3)

        let db = try SQLiteConnection(path: path, readOnly: true)
        #expect(try db.prepare("SELECT count(*) FROM runs").query { $0.int(0) } == [1])
        let genres = try db.prepare("SELECT genre FROM film_genres WHERE imdb_id = 'tt0172495' ORDER BY genre")
            .query { $0.text(0) }
        #expect(genres == ["Action", "Adventure", "Drama"])
        let ratings = try db.prepare("SELECT source, score FROM film_ratings").query { "\($0.text(0)!) \($0.int(1)!)" }
        #expect(ratings == ["Rotten Tomatoes 80"])
        let writers = try db.prepare("SELECT writer, role FROM film_writers").query { "\($0.text(0)!)/\($0.text(1)!)" }
        #expect(writers == ["David Franzoni/story"])

        // Opening again finds nothing to do and changes nothing.
        let again = try CacheStore(path: path, logger: SampleFilms.logger)
        #expect(try again.filmCount() == 2)
        #expect(try again.schemaVersion() == Schema.currentVersion)
    }

    @Test func everyMigrationAppliesOnTopOfTheOneBefore() throws {
        let db = try SQLiteConnection(path: path)
        for step in SchemaStep.allCases {
            try db.execute(Schema.sql(for: step))
            try db.execute("PRAGMA user_version = \(step.version)")
        }
        #expect(try db.prepare("PRAGMA user_version").query { $0.int(0) } == [Schema.currentVersion])
    }
}
