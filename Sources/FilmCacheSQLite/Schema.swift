import FilmCacheKit
import FilmCacheSQL

/// The cache database's schema on SQLite: each of the ``SchemaStep``s as SQL, its version kept in
/// `PRAGMA user_version`. Never edit a shipped step; add one. docs/SCHEMA.md documents the result.
enum Schema {
    /// The version this build writes and understands.
    static var currentVersion: Int { SchemaStep.latest.version }

    /// The SQL that brings a database from the step's version less one to its version, one script.
    static func sql(for step: SchemaStep) -> String {
        switch step {
        case .createCache:
            """
            CREATE TABLE films (
            \(filmColumns)
            ) WITHOUT ROWID;
            CREATE INDEX films_fetched_at ON films (fetched_at);

            CREATE TABLE lookups (
                imdb_id         TEXT PRIMARY KEY NOT NULL,
                status          TEXT NOT NULL CHECK (status IN ('not_found', 'failed')),
                message         TEXT,
                http_status     INTEGER,
                attempts        INTEGER NOT NULL,
                first_seen_at   TEXT NOT NULL,
                last_attempt_at TEXT NOT NULL,
                next_attempt_at TEXT NOT NULL
            ) WITHOUT ROWID;

            CREATE TABLE quota_ledger (
                key_fingerprint   TEXT NOT NULL,
                quota_day         TEXT NOT NULL,
                used              INTEGER NOT NULL DEFAULT 0,
                daily_limit       INTEGER NOT NULL,
                exhausted_at      TEXT,
                reset_observed_at TEXT,
                PRIMARY KEY (key_fingerprint, quota_day)
            ) WITHOUT ROWID;

            CREATE TABLE runs (
                id              INTEGER PRIMARY KEY AUTOINCREMENT,
                started_at      TEXT NOT NULL,
                finished_at     TEXT,
                key_fingerprint TEXT NOT NULL,
                considered      INTEGER NOT NULL DEFAULT 0,
                fresh           INTEGER NOT NULL DEFAULT 0,
                fetched         INTEGER NOT NULL DEFAULT 0,
                not_found       INTEGER NOT NULL DEFAULT 0,
                failed          INTEGER NOT NULL DEFAULT 0,
                calls           INTEGER NOT NULL DEFAULT 0,
                outcome         TEXT
            );
            """
        case .filmsWithRowid:
            // `films` becomes a rowid table (WITHOUT ROWID suits small rows; OMDb rows
            // with their raw body run to kilobytes and took about four times the space); list
            // columns as relational views (no write cost, always in step with `films`); an index
            // for the planner's and reports' reads of `lookups`.
            """
            CREATE TABLE films_v2 (
            \(filmColumns)
            );
            INSERT INTO films_v2 SELECT * FROM films;
            DROP TABLE films;
            ALTER TABLE films_v2 RENAME TO films;
            CREATE INDEX films_fetched_at ON films (fetched_at);
            CREATE VIEW film_genres (imdb_id, genre) AS
                SELECT f.imdb_id, j.value FROM films AS f, json_each(f.genres) AS j;
            CREATE VIEW film_directors (imdb_id, director) AS
                SELECT f.imdb_id, j.value FROM films AS f, json_each(f.directors) AS j;
            CREATE VIEW film_writers (imdb_id, writer, role) AS
                SELECT f.imdb_id, json_extract(j.value, '$.name'), json_extract(j.value, '$.role')
                FROM films AS f, json_each(f.writers) AS j;
            CREATE VIEW film_actors (imdb_id, actor, position) AS
                SELECT f.imdb_id, j.value, j.key FROM films AS f, json_each(f.actors) AS j;
            CREATE VIEW film_languages (imdb_id, language) AS
                SELECT f.imdb_id, j.value FROM films AS f, json_each(f.languages) AS j;
            CREATE VIEW film_countries (imdb_id, country) AS
                SELECT f.imdb_id, j.value FROM films AS f, json_each(f.countries) AS j;
            CREATE VIEW film_ratings (imdb_id, source, value, score) AS
                SELECT f.imdb_id, json_extract(j.value, '$.source'), json_extract(j.value, '$.value'),
                       json_extract(j.value, '$.score')
                FROM films AS f, json_each(f.ratings) AS j;
            CREATE INDEX lookups_status_next ON lookups (status, next_attempt_at);
            """
        case .aliases:
            // IDs OMDb answers with another title's body (IMDb merged them), and which title.
            """
            CREATE TABLE aliases (
                asked_id    TEXT PRIMARY KEY NOT NULL,
                imdb_id     TEXT NOT NULL,
                recorded_at TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX aliases_imdb_id ON aliases (imdb_id);
            """
        case .runReservations:
            // the calls each run reserved, so a killed run is closed with what the ledger counted for it.
            """
            ALTER TABLE runs ADD COLUMN reserved_calls INTEGER NOT NULL DEFAULT 0;
            """
        case .callsByMinute:
            // calls by the minute they were sent in, so a quota day in any time zone counts what was
            // sent within it. A day's calls from before this version count at its noon UTC, which lies
            // within that calendar day in every zone from UTC-12 to UTC+11.
            """
            CREATE TABLE quota_calls (
                key_fingerprint TEXT NOT NULL,
                minute          INTEGER NOT NULL,
                calls           INTEGER NOT NULL,
                PRIMARY KEY (key_fingerprint, minute)
            ) WITHOUT ROWID;
            INSERT INTO quota_calls (key_fingerprint, minute, calls)
                SELECT key_fingerprint, CAST(strftime('%s', quota_day || ' 12:00:00') AS INTEGER) / 60, used
                FROM quota_ledger WHERE used > 0;
            """
        case .titleIndex:
            // the title index: what OMDb's `t=` answered for a normalized title, year and type, so
            // a film a list names by title is paid for once.
            """
            CREATE TABLE titles (
                title_key       TEXT NOT NULL,
                year            INTEGER NOT NULL,
                type            TEXT NOT NULL,
                asked_title     TEXT NOT NULL,
                imdb_id         TEXT,
                resolved_at     TEXT NOT NULL,
                next_attempt_at TEXT,
                PRIMARY KEY (title_key, year, type)
            ) WITHOUT ROWID;
            CREATE INDEX titles_imdb_id ON titles (imdb_id);
            """
        case .posters:
            // each film's poster in the content-addressed poster store: which file holds it, the
            // validators to revalidate it with, and when a poster that is gone or failed is tried again.
            """
            CREATE TABLE posters (
                imdb_id         TEXT PRIMARY KEY NOT NULL,
                url             TEXT NOT NULL,
                status          TEXT NOT NULL CHECK (status IN ('stored', 'gone', 'failed')),
                sha256          TEXT,
                file            TEXT,
                bytes           INTEGER,
                content_type    TEXT,
                etag            TEXT,
                last_modified   TEXT,
                stored_at       TEXT,
                checked_at      TEXT NOT NULL,
                message         TEXT,
                attempts        INTEGER NOT NULL DEFAULT 0,
                next_attempt_at TEXT
            ) WITHOUT ROWID;
            CREATE INDEX posters_sha256 ON posters (sha256);
            """
        case .serveAnswers:
            // what `filmcache serve` keeps beside the films: OMDb's answers to queries other than a
            // plain `i=`, byte for byte (a BLOB: no text conversion touches them), and how often apps
            // asked for each film, which the nightly plan reads. `answers` keeps its rowid: bodies run
            // to kilobytes (see version 2).
            """
            CREATE TABLE answers (
                query       TEXT PRIMARY KEY NOT NULL,
                body        BLOB NOT NULL,
                found       INTEGER NOT NULL CHECK (found IN (0, 1)),
                answered_at TEXT NOT NULL
            );
            CREATE TABLE demand (
                imdb_id           TEXT PRIMARY KEY NOT NULL,
                requests          INTEGER NOT NULL,
                last_requested_at TEXT NOT NULL
            ) WITHOUT ROWID;
            """
        case .tmdb:
            // TMDb beside OMDb, joined on the IMDb ID: `/find`'s answers (a NULL entry is TMDb knowing
            // none), the entries with TMDb's body byte for byte (a BLOB; a rowid table, as bodies run
            // to kilobytes), the changes feed's progress and the calls made each UTC day.
            """
            CREATE TABLE tmdb_find (
                imdb_id    TEXT PRIMARY KEY NOT NULL,
                media_type TEXT CHECK (media_type IN ('movie', 'tv')),
                tmdb_id    INTEGER,
                checked_at TEXT NOT NULL,
                CHECK ((media_type IS NULL) = (tmdb_id IS NULL))
            ) WITHOUT ROWID;
            CREATE TABLE tmdb_films (
                media_type     TEXT NOT NULL CHECK (media_type IN ('movie', 'tv')),
                tmdb_id        INTEGER NOT NULL,
                imdb_id        TEXT,
                title          TEXT NOT NULL,
                original_title TEXT,
                overview       TEXT,
                release_date   TEXT,
                runtime        INTEGER,
                genres         TEXT,
                vote_average   REAL,
                vote_count     INTEGER,
                popularity     REAL,
                poster_path    TEXT,
                backdrop_path  TEXT,
                collection     TEXT,
                status         TEXT,
                body           BLOB NOT NULL,
                fetched_at     TEXT NOT NULL,
                changed        INTEGER NOT NULL DEFAULT 0 CHECK (changed IN (0, 1)),
                PRIMARY KEY (media_type, tmdb_id)
            );
            CREATE INDEX tmdb_films_imdb_id ON tmdb_films (imdb_id);
            CREATE INDEX tmdb_films_fetched_at ON tmdb_films (fetched_at);
            CREATE TABLE tmdb_sync (
                id             INTEGER PRIMARY KEY CHECK (id = 1),
                synced_through TEXT NOT NULL
            );
            CREATE TABLE tmdb_calls (
                day   TEXT NOT NULL,
                kind  TEXT NOT NULL,
                calls INTEGER NOT NULL,
                PRIMARY KEY (day, kind)
            ) WITHOUT ROWID;
            CREATE VIEW film_sources AS \(TMDbSQL.filmSourcesSelect);
            """
        }
    }

    /// The columns of `films` as versions 1 and 2 create them (version 2 rebuilt the table with a rowid).
    private static let filmColumns = """
            imdb_id         TEXT PRIMARY KEY NOT NULL,
            title           TEXT,
            type            TEXT,
            year_start      INTEGER,
            year_end        INTEGER,
            rated           TEXT,
            released        TEXT,
            runtime_minutes INTEGER,
            genres          TEXT NOT NULL DEFAULT '[]',
            directors       TEXT NOT NULL DEFAULT '[]',
            writers         TEXT NOT NULL DEFAULT '[]',
            actors          TEXT NOT NULL DEFAULT '[]',
            languages       TEXT NOT NULL DEFAULT '[]',
            countries       TEXT NOT NULL DEFAULT '[]',
            plot            TEXT,
            awards          TEXT,
            poster_url      TEXT,
            imdb_rating     REAL,
            imdb_votes      INTEGER,
            metascore       INTEGER,
            ratings         TEXT NOT NULL DEFAULT '[]',
            box_office_usd  INTEGER,
            total_seasons   INTEGER,
            season          INTEGER,
            episode         INTEGER,
            series_id       TEXT,
            dvd             TEXT,
            production      TEXT,
            website         TEXT,
            raw_json        TEXT NOT NULL,
            fetched_at      TEXT NOT NULL,
            data_version    INTEGER NOT NULL
        """

    /// The index on `films.fetched_at` (export `--since`, apps' "fetched lately"), made when it is
    /// missing. An import into an empty cache drops it and builds it once at its end
    /// (`CacheStore.beginImport()`): kept film by film, its leaves, all over the index, made three
    /// quarters of a large restore's writes. A writer's open builds it if an import was killed first.
    /// A later step must not take it for granted: a file may be without it when the step runs.
    static let filmsFetchedAtIndex = "CREATE INDEX IF NOT EXISTS films_fetched_at ON films (fetched_at)"

    /// The oldest version a read-only open accepts. What later versions add (version 8's `answers`
    /// and `demand`, version 9's TMDb tables) stands in empty on such a connection
    /// (``readOnlyStandIns(from:)``), so `plan`, `show` and `stats` keep reading a cache until its
    /// next warm migrates it.
    static let oldestReadable = 7

    /// Empty temporary views named as the tables added after `version`, for a read-only connection
    /// to an older file: reads find nothing, and writes fail, as every write on a read-only file does.
    /// (SQLite looks a name up in `temp` before `main`.)
    static func readOnlyStandIns(from version: Int) -> String {
        var views: [String] = []
        if version < SchemaStep.serveAnswers.version {
            views += [
                "answers (query, body, found, answered_at) AS SELECT NULL, NULL, NULL, NULL",
                "demand (imdb_id, requests, last_requested_at) AS SELECT NULL, NULL, NULL",
            ]
        }
        if version < SchemaStep.tmdb.version {
            views += [
                "tmdb_find (imdb_id, media_type, tmdb_id, checked_at) AS SELECT NULL, NULL, NULL, NULL",
                "tmdb_films (" + tmdbFilmColumns.joined(separator: ", ") + ") AS SELECT "
                    + tmdbFilmColumns.map { _ in "NULL" }.joined(separator: ", "),
                "tmdb_sync (id, synced_through) AS SELECT NULL, NULL",
                "tmdb_calls (day, kind, calls) AS SELECT NULL, NULL, NULL",
            ]
        }
        return views.map { "CREATE TEMP VIEW \($0) WHERE 0;" }.joined(separator: "\n")
    }

    /// The columns of `tmdb_films`, in the order version 9 creates them.
    static let tmdbFilmColumns = [
        "media_type", "tmdb_id", "imdb_id", "title", "original_title", "overview", "release_date", "runtime",
        "genres", "vote_average", "vote_count", "popularity", "poster_path", "backdrop_path", "collection", "status",
        "body", "fetched_at", "changed",
    ]
}
