import FilmCacheKit
import FilmCacheSQL
import Logging
import PostgresNIO

/// The cache database's schema on PostgreSQL: the ``SchemaStep``s as statements, each version recorded
/// in `schema_migrations`.
///
/// Versions count as the SQLite schema's do (`PRAGMA user_version`), so one number names one set of
/// tables on both backends: the first migration here creates at once what SQLite reached in seven
/// steps, with the shared tier's additions (`claims`, `runs.lease_until`). Never edit a shipped
/// migration; append one. docs/SCHEMA.md documents the result.
enum PostgresSchema {
    /// The version this build writes and understands.
    static var currentVersion: Int { SchemaStep.latest.version }

    /// The advisory lock (one 64-bit key) that migrations hold, so that processes opening one
    /// database at the same moment migrate it once: "filmcach" in ASCII.
    static let migrationLock: Int64 = 0x6669_6C6D_6361_6368
    /// The class (first key of the two-key form) of the ledger's advisory locks, one per key
    /// fingerprint (its `hashtext` the second key): "film" in ASCII.
    static let ledgerLockClass: Int32 = 0x6669_6C6D

    /// The statements of one step; none for the steps the first one here folds in.
    ///
    /// PostgreSQL's first migration creates at once what SQLite reached in seven steps, so steps 1 to
    /// 6 have nothing of their own and are not recorded: a new database records 7 and 8.
    static func statements(for step: SchemaStep) -> [String] {
        switch step {
        case .createCache, .filmsWithRowid, .aliases, .runReservations, .callsByMinute, .titleIndex:
            []
        case .posters:
            [
                // Text keys sort by their bytes (COLLATE "C"), as SQLite sorts them: paging by ID
                // and "after this ID" mean the same on both backends, whatever the database's locale.
                """
                CREATE TABLE films (
                    imdb_id         text COLLATE "C" PRIMARY KEY,
                    title           text,
                    type            text,
                    year_start      integer,
                    year_end        integer,
                    rated           text,
                    released        date,
                    runtime_minutes integer,
                    genres          jsonb NOT NULL DEFAULT '[]',
                    directors       jsonb NOT NULL DEFAULT '[]',
                    writers         jsonb NOT NULL DEFAULT '[]',
                    actors          jsonb NOT NULL DEFAULT '[]',
                    languages       jsonb NOT NULL DEFAULT '[]',
                    countries       jsonb NOT NULL DEFAULT '[]',
                    plot            text,
                    awards          text,
                    poster_url      text,
                    imdb_rating     double precision,
                    imdb_votes      bigint,
                    metascore       integer,
                    ratings         jsonb NOT NULL DEFAULT '[]',
                    box_office_usd  bigint,
                    total_seasons   integer,
                    season          integer,
                    episode         integer,
                    series_id       text,
                    dvd             date,
                    production      text,
                    website         text,
                    raw_json        json NOT NULL,
                    fetched_at      timestamptz NOT NULL,
                    data_version    integer NOT NULL
                )
                """,
                "CREATE INDEX films_fetched_at ON films (fetched_at)",
                """
                CREATE TABLE lookups (
                    imdb_id         text COLLATE "C" PRIMARY KEY,
                    status          text NOT NULL CHECK (status IN ('not_found', 'failed')),
                    message         text,
                    http_status     integer,
                    attempts        integer NOT NULL,
                    first_seen_at   timestamptz NOT NULL,
                    last_attempt_at timestamptz NOT NULL,
                    next_attempt_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX lookups_status_next ON lookups (status, next_attempt_at)",
                """
                CREATE TABLE aliases (
                    asked_id    text COLLATE "C" PRIMARY KEY,
                    imdb_id     text COLLATE "C" NOT NULL,
                    recorded_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX aliases_imdb_id ON aliases (imdb_id)",
                """
                CREATE TABLE titles (
                    title_key       text COLLATE "C" NOT NULL,
                    year            integer NOT NULL,
                    type            text COLLATE "C" NOT NULL,
                    asked_title     text NOT NULL,
                    imdb_id         text COLLATE "C",
                    resolved_at     timestamptz NOT NULL,
                    next_attempt_at timestamptz,
                    PRIMARY KEY (title_key, year, type)
                )
                """,
                "CREATE INDEX titles_imdb_id ON titles (imdb_id)",
                """
                CREATE TABLE quota_ledger (
                    key_fingerprint   text COLLATE "C" NOT NULL,
                    quota_day         date NOT NULL,
                    used              integer NOT NULL DEFAULT 0,
                    daily_limit       integer NOT NULL,
                    exhausted_at      timestamptz,
                    reset_observed_at timestamptz,
                    PRIMARY KEY (key_fingerprint, quota_day)
                )
                """,
                """
                CREATE TABLE quota_calls (
                    key_fingerprint text COLLATE "C" NOT NULL,
                    minute          integer NOT NULL,
                    calls           integer NOT NULL,
                    PRIMARY KEY (key_fingerprint, minute)
                )
                """,
                // `lease_until`: a run not finished whose lease has passed is one no live process holds.
                """
                CREATE TABLE runs (
                    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    started_at      timestamptz NOT NULL,
                    finished_at     timestamptz,
                    key_fingerprint text COLLATE "C" NOT NULL,
                    considered      integer NOT NULL DEFAULT 0,
                    fresh           integer NOT NULL DEFAULT 0,
                    fetched         integer NOT NULL DEFAULT 0,
                    not_found       integer NOT NULL DEFAULT 0,
                    failed          integer NOT NULL DEFAULT 0,
                    calls           integer NOT NULL DEFAULT 0,
                    reserved_calls  integer NOT NULL DEFAULT 0,
                    outcome         text,
                    lease_until     timestamptz
                )
                """,
                "CREATE INDEX runs_started_at ON runs (started_at)",
                """
                CREATE TABLE posters (
                    imdb_id         text COLLATE "C" PRIMARY KEY,
                    url             text NOT NULL,
                    status          text NOT NULL CHECK (status IN ('stored', 'gone', 'failed')),
                    sha256          text,
                    file            text,
                    bytes           bigint,
                    content_type    text,
                    etag            text,
                    last_modified   text,
                    stored_at       timestamptz,
                    checked_at      timestamptz NOT NULL,
                    message         text,
                    attempts        integer NOT NULL DEFAULT 0,
                    next_attempt_at timestamptz
                )
                """,
                "CREATE INDEX posters_sha256 ON posters (sha256)",
                // Which run fetches which ID tonight, until when.
                """
                CREATE TABLE claims (
                    imdb_id     text COLLATE "C" PRIMARY KEY,
                    run_id      bigint,
                    lease_until timestamptz
                )
                """,
                "CREATE INDEX claims_run_id ON claims (run_id)",
                "CREATE VIEW film_genres (imdb_id, genre) AS"
                    + " SELECT f.imdb_id, j.value FROM films AS f, jsonb_array_elements_text(f.genres) AS j(value)",
                "CREATE VIEW film_directors (imdb_id, director) AS"
                    + " SELECT f.imdb_id, j.value FROM films AS f, jsonb_array_elements_text(f.directors) AS j(value)",
                "CREATE VIEW film_writers (imdb_id, writer, role) AS"
                    + " SELECT f.imdb_id, j.value ->> 'name', j.value ->> 'role'"
                    + " FROM films AS f, jsonb_array_elements(f.writers) AS j(value)",
                "CREATE VIEW film_actors (imdb_id, actor, position) AS"
                    + " SELECT f.imdb_id, j.value, j.ordinality - 1"
                    + " FROM films AS f, jsonb_array_elements_text(f.actors) WITH ORDINALITY AS j(value, ordinality)",
                "CREATE VIEW film_languages (imdb_id, language) AS"
                    + " SELECT f.imdb_id, j.value FROM films AS f, jsonb_array_elements_text(f.languages) AS j(value)",
                "CREATE VIEW film_countries (imdb_id, country) AS"
                    + " SELECT f.imdb_id, j.value FROM films AS f, jsonb_array_elements_text(f.countries) AS j(value)",
                "CREATE VIEW film_ratings (imdb_id, source, value, score) AS"
                    + " SELECT f.imdb_id, j.value ->> 'source', j.value ->> 'value', (j.value ->> 'score')::integer"
                    + " FROM films AS f, jsonb_array_elements(f.ratings) AS j(value)",
            ]
        case .serveAnswers:
            [
                // What `filmcache serve` keeps beside the films: OMDb's answers byte for byte, and how
                // often apps asked for each film, which the nightly plan reads.
                """
                CREATE TABLE answers (
                    query       text COLLATE "C" PRIMARY KEY,
                    body        bytea NOT NULL,
                    found       boolean NOT NULL,
                    answered_at timestamptz NOT NULL
                )
                """,
                """
                CREATE TABLE demand (
                    imdb_id           text COLLATE "C" PRIMARY KEY,
                    requests          bigint NOT NULL,
                    last_requested_at timestamptz NOT NULL
                )
                """,
            ]
        case .tmdb:
            [
                // TMDb beside OMDb, joined on the IMDb ID: `/find`'s answers (a NULL entry is TMDb
                // knowing none), the entries with TMDb's body byte for byte, the changes feed's
                // progress and the calls made each UTC day.
                """
                CREATE TABLE tmdb_find (
                    imdb_id    text COLLATE "C" PRIMARY KEY,
                    media_type text COLLATE "C" CHECK (media_type IN ('movie', 'tv')),
                    tmdb_id    integer,
                    checked_at timestamptz NOT NULL,
                    CHECK ((media_type IS NULL) = (tmdb_id IS NULL))
                )
                """,
                """
                CREATE TABLE tmdb_films (
                    media_type     text COLLATE "C" NOT NULL CHECK (media_type IN ('movie', 'tv')),
                    tmdb_id        integer NOT NULL,
                    imdb_id        text COLLATE "C",
                    title          text NOT NULL,
                    original_title text,
                    overview       text,
                    release_date   text,
                    runtime        integer,
                    genres         text,
                    vote_average   double precision,
                    vote_count     integer,
                    popularity     double precision,
                    poster_path    text,
                    backdrop_path  text,
                    collection     text,
                    status         text,
                    body           bytea NOT NULL,
                    fetched_at     timestamptz NOT NULL,
                    changed        boolean NOT NULL DEFAULT false,
                    PRIMARY KEY (media_type, tmdb_id)
                )
                """,
                "CREATE INDEX tmdb_films_imdb_id ON tmdb_films (imdb_id)",
                "CREATE INDEX tmdb_films_fetched_at ON tmdb_films (fetched_at)",
                """
                CREATE TABLE tmdb_sync (
                    id             integer PRIMARY KEY CHECK (id = 1),
                    synced_through timestamptz NOT NULL
                )
                """,
                """
                CREATE TABLE tmdb_calls (
                    day   text COLLATE "C" NOT NULL,
                    kind  text COLLATE "C" NOT NULL,
                    calls bigint NOT NULL,
                    PRIMARY KEY (day, kind)
                )
                """,
                "CREATE VIEW film_sources AS " + TMDbSQL.filmSourcesSelect,
            ]
        }
    }

    /// The oldest version a read-only open accepts, as on SQLite (`Schema.oldestReadable`): the
    /// tables added since (version 8's `answers` and `demand`, version 9's TMDb tables) read as empty
    /// until a warm migrates.
    static let oldestReadable = 7

    /// The first version with `answers` and `demand`.
    static let answersVersion = SchemaStep.serveAnswers.version

    /// The schema version recorded in the database; `nil` when it has no `schema_migrations` table.
    static func version(_ c: PostgresConnection, logger: Logger) async throws -> Int? {
        let exists = try await c.rows("SELECT to_regclass('schema_migrations') IS NOT NULL", logger)
        guard try exists.first?.decode(Bool.self) == true else { return nil }
        let rows = try await c.rows("SELECT coalesce(max(version), 0) FROM schema_migrations", logger)
        return try rows.first?.decode(Int.self) ?? 0
    }

    /// What opening a database with no filmcache schema read-only, where it must have one, throws.
    static func absent(database: String) -> StoreError {
        .open(
            database: database, message: "it has no filmcache schema yet; run a warm (filmcache warm) against it first")
    }

    /// Checks the schema at open and, unless `readOnly`, creates or migrates it; returns the version
    /// the database has then, or `nil` when a read-only open finds no schema at all.
    ///
    /// The version is read again inside the transaction, under the migration lock: of several
    /// processes opening an old database at once, one migrates and the others find nothing to do.
    /// A crash mid-way leaves the database at the old version, intact. A read-only open takes a
    /// database from ``oldestReadable`` on as it is.
    static func prepare(
        _ c: PostgresConnection, database: String, readOnly: Bool, logger: Logger
    ) async throws -> Int? {
        let found = try await version(c, logger: logger)
        if let found, found > currentVersion {
            throw StoreError.newerSchema(database: database, found: found, supported: currentVersion)
        }
        if found == currentVersion {
            if !readOnly { try await compressWithLZ4(c, logger: logger) }
            return currentVersion
        }
        if readOnly, let found, found >= oldestReadable { return found }
        guard !readOnly else {
            guard let found else { return nil }
            throw StoreError.open(
                database: database,
                message: "its schema (version \(found)) is older than this filmcache's (\(currentVersion));"
                    + " run a warm (filmcache warm) against it first")
        }
        try await c.withTransaction(logger: logger) { c in
            try await c.run("SELECT pg_advisory_xact_lock(\(migrationLock))", logger)
            try await c.run(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger)
            let found = try await version(c, logger: logger) ?? 0
            if found > currentVersion {
                throw StoreError.newerSchema(database: database, found: found, supported: currentVersion)
            }
            var from = found
            for step in SchemaStep.after(found) {
                let statements = statements(for: step)
                guard !statements.isEmpty else { continue }
                logger.info(
                    "migrating cache schema", metadata: ["from": "\(from)", "to": "\(step.version)", "step": "\(step)"])
                from = step.version
                for statement in statements {
                    try await c.run(PostgresQuery(unsafeSQL: statement), logger)
                }
                try await c.run("INSERT INTO schema_migrations (version) VALUES (\(step.version))", logger)
            }
        }
        try await compressWithLZ4(c, logger: logger)
        return currentVersion
    }

    /// Has the server compress films' long values (the raw body, the plot, the lists) with lz4 where
    /// it can: several times faster than its default (pglz), which took a third of a batch write.
    ///
    /// A storage setting, not a table change, so no schema version: made by the first writable open
    /// of the database's owner, old databases included (values already stored keep theirs). It waits
    /// at most a second for its lock, and when it cannot have it, or the role does not own the table,
    /// or the server has no lz4, everything works as before.
    static func compressWithLZ4(_ c: PostgresConnection, logger: Logger) async throws {
        let columns = try await c.rows(
            """
            SELECT quote_ident(a.attname) FROM pg_attribute AS a JOIN pg_class AS t ON t.oid = a.attrelid
            WHERE t.oid = 'films'::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attstorage IN ('x', 'm')
              AND a.attcompression IS DISTINCT FROM 'l' AND pg_has_role(t.relowner, 'USAGE')
              AND EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))
            """, logger
        ).map { try $0.decode(String.self) }
        guard !columns.isEmpty else { return }
        do {
            try await c.withTransaction(logger: logger) { c in
                try await c.run("SET LOCAL lock_timeout = '1s'", logger)
                let changes = columns.map { "ALTER COLUMN \($0) SET COMPRESSION lz4" }.joined(separator: ", ")
                try await c.run(PostgresQuery(unsafeSQL: "ALTER TABLE films " + changes), logger)
            }
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "55P03" {
            logger.debug("films left with the server's compression: its lock was busy", metadata: ["error": "\(error)"])
        }
    }
}
