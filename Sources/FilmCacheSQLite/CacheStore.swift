import CSQLite
import FilmCacheKit
import FilmCacheSQL
import Foundation
import Logging
import Synchronization

/// The shared cache database: owns the single writer connection and offers intent-named operations.
///
/// Every method is one transaction. The file runs in WAL mode so apps reading
/// `films` are never blocked by a warm for longer than one batch commit.
public final class CacheStore: Sendable {
    /// Where the database file lives.
    public let path: String
    private let state: Mutex<Connection>
    private let logger: Logger
    /// Copies the WAL into the file off the writer's thread; `nil` for a read-only store.
    let checkpointer: Checkpointer?

    /// Opens the database at `path`, creating it when absent and migrating an older schema in place.
    ///
    /// With `readOnly` the file is opened read-only and never created, changed or migrated (a
    /// reader in the cache's group needs no write permission): a file with no filmcache schema, or
    /// one older than `Schema.oldestReadable`, is refused, saying that a warm sets it up, as on
    /// PostgreSQL. A readable older file reads as if the tables added since were empty.
    public init(path: String, logger: Logger, readOnly: Bool = false) throws(StoreError) {
        self.path = path
        self.logger = logger
        if readOnly {
            let db = try SQLiteConnection.reader(path: path)
            sqlite3_busy_timeout(db.handle, 10_000)
            let found = try Self.currentVersion(db)
            if found == Schema.currentVersion {
                self.state = Mutex(Connection(db))
                self.checkpointer = nil
                return
            }
            if found >= Schema.oldestReadable, found < Schema.currentVersion {
                try db.execute(Schema.readOnlyStandIns(from: found))
                self.state = Mutex(Connection(db))
                self.checkpointer = nil
                return
            }
            guard found < Schema.currentVersion else {
                throw .newerSchema(database: db.path, found: found, supported: Schema.currentVersion)
            }
            throw .open(
                database: db.path,
                message: found == 0
                    ? "it has no filmcache schema; a warm (filmcache warm) sets one up in a new or filmcache file"
                    : "its schema (version \(found)) is older than this filmcache's (\(Schema.currentVersion));"
                        + " run a warm (filmcache warm) against it first")
        }
        let db = try SQLiteConnection(path: path)
        // A busy timeout turns short lock waits (another warm committing, a reader checkpointing)
        // into waits instead of "database is locked" errors.
        sqlite3_busy_timeout(db.handle, 10_000)
        // Switching a new file to WAL needs an exclusive lock and SQLite does not call the busy
        // handler for it, so two processes opening a fresh file at once retry here.
        try Self.retryingWhileBusy { () throws(StoreError) in try db.execute("PRAGMA journal_mode = WAL") }
        // The writer's page cache is 1 MiB, about half SQLite's default (2,000 KiB). Upserts in a
        // worklist's order land on leaf pages all over the file, which no cache of either size
        // holds (a cache of 100,000 films: 51,654 leaf pages of `films`, 128 interior ones). Warms
        // and imports of films in random order took as long within their rounds' spread; a warm's
        // anonymous memory was about 0.5 MB lower, an import's peak 1–3 MB lower.
        try db.execute("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -1024;")
        // The -wal and -shm files stay when the last connection closes, with the modes the writer
        // gave them: a reader in the cache's group then opens the file read-only at any time,
        // with no need to create them in a directory it cannot write. A size limit makes that last
        // close (its checkpoint done) truncate the -wal to nothing: otherwise every process opening
        // the cache first (a show, an app's reader) reads and checksums all of it again, megabytes
        // after a warm. While it runs, the checkpointer starts it over below 64 MiB.
        try db.execute("PRAGMA journal_size_limit = 67108864")
        var persist: Int32 = 1
        sqlite3_file_control(db.handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        try Self.migrate(db, logger: logger)
        let checkpointer = try Checkpointer(path: path, logger: logger)
        checkpointer.attach(to: db)
        self.checkpointer = checkpointer
        self.state = Mutex(Connection(db))
    }

    deinit {
        guard let checkpointer else { return }
        state.withLock { checkpointer.detach(from: $0.db) }
    }

    /// Brings the schema to `Schema.currentVersion`, refusing a newer one.
    ///
    /// The version is read inside the write transaction, so of two processes opening an
    /// old file at once, one migrates and the other then finds nothing to do.
    private static func migrate(_ db: SQLiteConnection, logger: Logger) throws(StoreError) {
        let found = try currentVersion(db)
        guard found <= Schema.currentVersion else {
            throw .newerSchema(database: db.path, found: found, supported: Schema.currentVersion)
        }
        guard found < Schema.currentVersion else {
            rebuildSetAsideIndex(db, logger: logger)
            return
        }
        try db.transaction { () throws(StoreError) in
            let found = try currentVersion(db)
            guard found < Schema.currentVersion else { return }
            for step in SchemaStep.after(found) {
                logger.info(
                    "migrating cache schema",
                    metadata: ["from": "\(step.version - 1)", "to": "\(step.version)", "step": "\(step)"])
                try db.execute(Schema.sql(for: step))
            }
            try db.execute("PRAGMA user_version = \(Schema.currentVersion)")
        }
    }

    /// Builds `films`' `fetched_at` index when an import into an empty cache set it aside
    /// (`beginImport()`): one stopped before its end, or one still running, which then goes on with
    /// the index (correct, only slower). The index only speeds reads up: a failure to build it is
    /// logged, and the open goes on.
    private static func rebuildSetAsideIndex(_ db: SQLiteConnection, logger: Logger) {
        do throws(StoreError) {
            guard try !hasFetchedAtIndex(db) else { return }
            logger.notice(
                "building the films' fetched_at index: an import into an empty cache set it aside (one is running, or one was stopped before its end)"
            )
            try db.execute(Schema.filmsFetchedAtIndex)
        } catch {
            logger.warning(
                "the films' fetched_at index is missing and could not be built; reads by fetch time stay slow",
                metadata: ["error": "\(error)"])
        }
    }

    /// Whether `films` has its `fetched_at` index.
    static func hasFetchedAtIndex(_ db: SQLiteConnection) throws(StoreError) -> Bool {
        try db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'films_fetched_at'")
            .query { $0.int(0) ?? 0 }.first ?? 0 > 0
    }

    private static func currentVersion(_ db: SQLiteConnection) throws(StoreError) -> Int {
        try db.prepare("PRAGMA user_version").query { $0.int(0) ?? 0 }.first ?? 0
    }

    /// Runs `body`, retrying for up to ten seconds while another connection holds the lock.
    private static func retryingWhileBusy(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        var tries = 0
        while true {
            do {
                return try body()
            } catch  where error.isBusy && tries < 200 {
                tries += 1
                usleep(50_000)
            }
        }
    }

    /// The schema version of the open file.
    public func schemaVersion() throws(StoreError) -> Int {
        try withConnection { c throws(StoreError) in
            try c.db.prepare("PRAGMA user_version").query { $0.int(0) ?? 0 }.first ?? 0
        }
    }

    /// Commits one batch of results in a single transaction: films upserted, negative answers and aliases recorded.
    ///
    /// A film that arrives clears any earlier not-found or failure entry for its ID, and any alias
    /// under its ID; an alias clears the asked ID's negative entry.
    public func write(_ batch: WriteBatch) throws(StoreError) {
        guard !batch.isEmpty else { return }
        try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                for film in batch.films {
                    try c.upsertFilm.run(FilmRow.values(for: film))
                }
                if !batch.films.isEmpty {
                    let ids = JSONText.array(batch.films.map(\.imdbID))
                    try c.deleteLookups.run([.text(ids)])
                    // A film that now answers for itself is no longer an alias of another.
                    try c.deleteAliases.run([.text(ids)])
                }
                for alias in batch.aliases {
                    try c.upsertAlias.run([
                        .text(alias.askedID), .text(alias.imdbID), .text(Timestamp.format(alias.recordedAt)),
                    ])
                }
                if !batch.aliases.isEmpty {
                    try c.deleteLookups.run([.text(JSONText.array(batch.aliases.map(\.askedID)))])
                }
                for answer in batch.titles {
                    try c.upsertTitle.run([
                        .text(answer.key.title), .integer(answer.key.year), .text(answer.key.type),
                        .text(answer.askedTitle), .optional(answer.imdbID), .text(Timestamp.format(answer.answeredAt)),
                        .optional(answer.nextAttemptAt.map(Timestamp.format)),
                    ])
                }
                for lookup in batch.lookups {
                    try c.upsertLookup.run([
                        .text(lookup.imdbID), .text(lookup.status.rawValue), .optional(lookup.message),
                        .optional(lookup.httpStatus), .text(Timestamp.format(lookup.attemptedAt)),
                        .text(Timestamp.format(lookup.nextAttemptAt)),
                    ])
                }
            }
        }
    }

    /// What the cache knows about each of `ids`, read set-based through a temporary table.
    ///
    /// The result has one entry per distinct ID, in the order given. Only the temporary table
    /// is written, so the read takes no write lock and waits for no running warm.
    public func states(of ids: [String]) throws(StoreError) -> [CachedState] {
        // A list of IDs names no title, so no title's standing (the only use of the instant) is read.
        try withWorklist(Worklist(ids: ids), at: .distantPast) { c, _ throws(StoreError) in
            var states: [(position: Int, state: CachedState)] = []
            try c.selectStates.forEach { row throws(StoreError) in
                states.append((row.int(10) ?? 0, Self.cachedState(row)))
            }
            return states.sorted { $0.position < $1.position }.map(\.state)
        }
    }

    /// Plans `worklist` against the cache: the same plan as `Planner.plan(_:demand:now:budget:)`
    /// makes from states in memory, with the database holding what grows with the worklist.
    ///
    /// The entries go into a temporary table that merges duplicates and counts the files naming
    /// each ID; each ID's state is read in one pass and placed by `planner`; due IDs go into a
    /// second temporary table, read back in the order of its index. Memory stays flat as the
    /// worklist grows: only the worklist's entries and the plan's own lists are held.
    public func plan(_ worklist: Worklist, planner: Planner, now: Date, budget: Int?) throws(StoreError) -> Plan {
        try withWorklist(worklist, at: now) { c, titles throws(StoreError) in
            var plan = Plan()
            plan.titles = titles.counts
            let insertDue = try c.insertDue
            try c.selectStates.forEach { row throws(StoreError) in
                let state = Self.cachedState(row)
                let placement = planner.place(
                    state, demand: row.int(11) ?? 1, requests: row.int(12) ?? 0, position: row.int(10) ?? 0, now: now)
                plan.count(placement)
                guard case .due(let rank) = placement else { return }
                try insertDue.run([
                    .integer(rank.kind.rawValue), .real(rank.score), .integer(rank.position), .text(state.imdbID),
                    .optional(rank.failedBefore), .null, .integer(rank.requests),
                ])
            }
            // A title to resolve is a film not cached yet: it ranks as a missing ID named as often.
            for (index, due) in titles.due.enumerated() {
                try insertDue.run([
                    .integer(DueRank.Kind.missing.rawValue), .real(Planner.weight(named: due.demand, requests: 0)),
                    .integer(due.position), .text(""), .null, .integer(index), .integer(0),
                ])
            }
            try c.selectDue.forEach { row throws(StoreError) in
                if let index = row.int(2) {
                    plan.schedule(.title(titles.due[index].entry), failedBefore: nil, budget: budget)
                } else {
                    plan.schedule(
                        .id(row.text(0) ?? ""), failedBefore: row.int(1), requests: row.int(3) ?? 0, budget: budget)
                }
            }
            return plan
        }
    }

    /// Looks each distinct title of `worklist` up in the title index, at `now`.
    private static func titlePlan(_ worklist: Worklist, _ c: Connection, at now: Date) throws(StoreError) -> TitlePlan {
        guard !worklist.titles.isEmpty else { return TitlePlan() }
        let titles = TitlePlan.titles(of: worklist)
        var rows: [TitleIndexRow?] = []
        rows.reserveCapacity(titles.count)
        for title in titles {
            let key = title.key
            rows.append(
                try c.selectTitle.query([.text(key.title), .integer(key.year), .text(key.type)]) { row in
                    TitleIndexRow(
                        imdbID: row.text(0), nextAttemptAt: row.text(1).flatMap(Timestamp.parse),
                        askedTitle: row.text(2) ?? "")
                }.first)
        }
        return TitlePlan(titles, rows: rows, worklist: worklist, at: now)
    }

    /// Runs `body` in a read transaction with `worklist` loaded into `temp.worklist`, emptied again
    /// after; a title the index knows at `now` stands in the worklist as its ID.
    private func withWorklist<T: Sendable>(
        _ worklist: Worklist, at now: Date, _ body: (Connection, TitlePlan) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        try withConnection { c throws(StoreError) in
            // Made outside the transaction: a rollback would take tables made inside it away again.
            try c.makePlanTables()
            let result = try c.db.transaction(deferred: true) { () throws(StoreError) in
                try c.emptyPlanTables()
                let titles = try Self.titlePlan(worklist, c, at: now)
                var position = 0
                let insert = try c.insertWorklist
                try worklist.forEachFile { (file, ids, entries) throws(StoreError) in
                    for id in ids {
                        try insert.run([.text(id), .integer(position), .integer(file)])
                        position += 1
                    }
                    for entry in entries {
                        guard let id = titles.resolved[entry.query.key] else { continue }
                        try insert.run([.text(id), .integer(position), .integer(file)])
                        position += 1
                    }
                }
                let result = try body(c, titles)
                try c.emptyPlanTables()
                return result
            }
            // The temporary tables' pages go back to the allocator, for the run's own writes to reuse.
            sqlite3_db_release_memory(c.db.handle)
            return result
        }
    }

    /// The state of one row of `selectStates`.
    ///
    /// The instants are read from SQLite's bytes in place: a `String` for each cost the planner
    /// as much as the rest of the row.
    private static func cachedState(_ row: SQLiteStatement) -> CachedState {
        let fetchedAt = row.textBytes(1)
        return CachedState(
            imdbID: row.text(0) ?? "",
            fetchedAt: fetchedAt.flatMap { Timestamp.parse(utf8: $0) },
            dataVersion: row.int(2),
            lookupStatus: row.text(3).flatMap(LookupStatus.init(rawValue:)),
            nextAttemptAt: row.textBytes(4).flatMap { Timestamp.parse(utf8: $0) },
            lookupAttempts: row.int(5),
            age: fetchedAt == nil
                ? nil
                : TitleAge(type: row.text(6), yearStart: row.int(7), yearEnd: row.int(8), released: row.text(9))
        )
    }

    /// The ID `imdbID` is an alias of (OMDb answers it with that title's body), if it is one.
    public func aliasTarget(of imdbID: String) throws(StoreError) -> String? {
        try withConnection { c throws(StoreError) in
            try c.db.prepare("SELECT imdb_id FROM aliases WHERE asked_id = ?").query([.text(imdbID)]) { $0.text(0) }
                .first ?? nil
        }
    }

    /// The cached film with this ID, or `nil` when the cache has none.
    public func film(_ imdbID: String) throws(StoreError) -> IMDBFilm? {
        try withConnection { c throws(StoreError) in
            try c.db.prepare("SELECT \(FilmRow.columns.joined(separator: ", ")) FROM films WHERE imdb_id = ?")
                .query([.text(imdbID)]) { FilmRow.film(from: $0) }.first
        }
    }

    /// The cached films with these IDs, in no particular order; an ID the cache lacks is left out.
    public func films(_ imdbIDs: [String]) throws(StoreError) -> [IMDBFilm] {
        guard !imdbIDs.isEmpty else { return [] }
        return try withConnection { c throws(StoreError) in
            try c.db.cached(
                "SELECT \(FilmRow.columns.joined(separator: ", ")) FROM films"
                    + " WHERE imdb_id IN (SELECT value FROM json_each(?))"
            ).query([.text(JSONText.array(imdbIDs))]) { FilmRow.film(from: $0) }
        }
    }

    /// The not-found or failure entry for this ID, if any.
    public func lookup(_ imdbID: String) throws(StoreError) -> LookupEntry? {
        try withConnection { c throws(StoreError) in
            try c.db.prepare(
                "SELECT status, message, http_status, attempts, last_attempt_at, next_attempt_at FROM lookups"
                    + " WHERE imdb_id = ?"
            ).query([.text(imdbID)]) { row in
                LookupEntry.row(
                    imdbID: imdbID, status: LookupStatus(rawValue: row.text(0) ?? "") ?? .failed,
                    message: row.text(1), httpStatus: row.int(2), attempts: row.int(3) ?? 0,
                    lastAttemptAt: row.text(4).flatMap(Timestamp.parse) ?? .distantPast,
                    nextAttemptAt: row.text(5).flatMap(Timestamp.parse) ?? .distantPast)
            }.first
        }
    }

    /// Number of rows in `films`.
    public func filmCount() throws(StoreError) -> Int {
        try withConnection { c throws(StoreError) in
            try c.db.prepare("SELECT count(*) FROM films").query { $0.int(0) ?? 0 }.first ?? 0
        }
    }

    /// Runs `body` with the connection held; internal so other store files can add operations.
    func withConnection<T: Sendable>(_ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        try state.withLock { (c: inout Connection) throws(StoreError) -> T in try body(c) }
    }

    /// The connection, and its statements, each prepared on its first use: a command that reads one
    /// film prepares one statement, not the dozen a warm needs (each costs a parse at start-up).
    final class Connection {
        let db: SQLiteConnection
        private var prepared: [Statement: SQLiteStatement] = [:]
        private var planTablesMade = false

        init(_ db: SQLiteConnection) {
            self.db = db
        }

        var upsertFilm: SQLiteStatement { get throws(StoreError) { try statement(.upsertFilm) } }
        var deleteLookups: SQLiteStatement { get throws(StoreError) { try statement(.deleteLookups) } }
        var deleteAliases: SQLiteStatement { get throws(StoreError) { try statement(.deleteAliases) } }
        var upsertAlias: SQLiteStatement { get throws(StoreError) { try statement(.upsertAlias) } }
        var upsertLookup: SQLiteStatement { get throws(StoreError) { try statement(.upsertLookup) } }
        var upsertTitle: SQLiteStatement { get throws(StoreError) { try statement(.upsertTitle) } }
        var selectTitle: SQLiteStatement { get throws(StoreError) { try statement(.selectTitle) } }
        var insertWorklist: SQLiteStatement { get throws(StoreError) { try statement(.insertWorklist) } }
        var selectStates: SQLiteStatement { get throws(StoreError) { try statement(.selectStates) } }
        var insertDue: SQLiteStatement { get throws(StoreError) { try statement(.insertDue) } }
        var selectDue: SQLiteStatement { get throws(StoreError) { try statement(.selectDue) } }

        /// Empties `temp.worklist` and `temp.due` (made by `makePlanTables`).
        func emptyPlanTables() throws(StoreError) {
            try db.execute("DELETE FROM temp.worklist; DELETE FROM temp.due")
        }

        /// Makes `temp.worklist` and `temp.due` once, outside any transaction: made inside one, they would
        /// go again with its rollback while this connection went on believing them made.
        func makePlanTables() throws(StoreError) {
            guard !planTablesMade else { return }
            try db.execute(Self.planTablesSQL)
            planTablesMade = true
        }

        /// Keyed by `Statement`, not by its text (as `SQLiteConnection.cached` is): a warm asks for
        /// `upsertFilm`, 1.5 KB of SQL, once a film.
        private func statement(_ statement: Statement) throws(StoreError) -> SQLiteStatement {
            if let ready = prepared[statement] { return ready }
            let ready = try db.prepare(statement.sql)
            prepared[statement] = ready
            return ready
        }

        // Temporary tables live in SQLite's page cache, kept to 512 KB, and spill to a temporary
        // file, so a long worklist costs pages on disk, not memory; `due` is read in the order
        // of its index, so no sorter holds the due IDs in memory either. `file` is the last
        // file that named the ID: one file's entries come together, so a change of file is
        // one more file.
        private static let planTablesSQL =
            """
            CREATE TEMP TABLE IF NOT EXISTS worklist (
                imdb_id TEXT PRIMARY KEY, position INTEGER NOT NULL, demand INTEGER NOT NULL,
                file INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TEMP TABLE IF NOT EXISTS due (
                kind INTEGER NOT NULL, score REAL NOT NULL, position INTEGER NOT NULL, imdb_id TEXT NOT NULL,
                failed_before INTEGER, title INTEGER, requests INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS temp.due_order ON due (kind, score DESC, position);
            PRAGMA temp.cache_size = -512;
            """

        /// The last four read `temp.worklist` and `temp.due`: only `withWorklist` uses them, after `makePlanTables`.
        private enum Statement {
            case upsertFilm, deleteLookups, deleteAliases, upsertAlias, upsertLookup, upsertTitle, selectTitle,
                insertWorklist, selectStates, insertDue, selectDue

            var sql: String {
                switch self {
                case .upsertFilm:
                    let columns = FilmRow.columns
                    let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
                    return "INSERT INTO films (\(columns.joined(separator: ", "))) VALUES ("
                        + Array(repeating: "?", count: columns.count).joined(separator: ", ")
                        + ") ON CONFLICT (imdb_id) DO UPDATE SET \(updates)"
                // One statement per batch clears the negative answers of every film that arrived.
                case .deleteLookups:
                    return "DELETE FROM lookups WHERE imdb_id IN (SELECT value FROM json_each(?))"
                case .deleteAliases:
                    return "DELETE FROM aliases WHERE asked_id IN (SELECT value FROM json_each(?))"
                case .upsertAlias:
                    return "INSERT INTO aliases (asked_id, imdb_id, recorded_at) VALUES (?, ?, ?)"
                        + " ON CONFLICT (asked_id) DO UPDATE SET imdb_id = excluded.imdb_id, recorded_at = excluded.recorded_at"
                case .upsertLookup:
                    return """
                        INSERT INTO lookups (imdb_id, status, message, http_status, attempts, first_seen_at,
                                             last_attempt_at, next_attempt_at)
                        VALUES (?1, ?2, ?3, ?4, 1, ?5, ?5, ?6)
                        ON CONFLICT (imdb_id) DO UPDATE SET
                            status = excluded.status, message = excluded.message, http_status = excluded.http_status,
                            attempts = lookups.attempts + 1, last_attempt_at = excluded.last_attempt_at,
                            next_attempt_at = excluded.next_attempt_at
                        """
                case .upsertTitle:
                    return """
                        INSERT INTO titles (title_key, year, type, asked_title, imdb_id, resolved_at, next_attempt_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (title_key, year, type) DO UPDATE SET
                            asked_title = excluded.asked_title, imdb_id = excluded.imdb_id,
                            resolved_at = excluded.resolved_at, next_attempt_at = excluded.next_attempt_at
                        WHERE \(TitleIndexRow.replacesSQL)
                        """
                case .selectTitle:
                    return
                        "SELECT imdb_id, next_attempt_at, asked_title FROM titles WHERE title_key = ? AND year = ? AND type = ?"
                case .insertWorklist:
                    return """
                        INSERT INTO temp.worklist (imdb_id, position, demand, file) VALUES (?1, ?2, 1, ?3)
                        ON CONFLICT (imdb_id) DO UPDATE SET demand = demand + (file <> excluded.file), file = excluded.file
                        """
                case .selectStates:
                    return """
                        SELECT w.imdb_id, f.fetched_at, f.data_version, l.status, l.next_attempt_at, l.attempts,
                               f.type, f.year_start, f.year_end, f.released, w.position, w.demand, d.requests
                        FROM temp.worklist AS w
                        LEFT JOIN aliases AS a ON a.asked_id = w.imdb_id
                        LEFT JOIN films AS f ON f.imdb_id = coalesce(a.imdb_id, w.imdb_id)
                        LEFT JOIN lookups AS l ON l.imdb_id = w.imdb_id
                        LEFT JOIN demand AS d ON d.imdb_id = w.imdb_id
                        """
                case .insertDue:
                    return """
                        INSERT INTO temp.due (kind, score, position, imdb_id, failed_before, title, requests)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """
                // The order of `DueRank.comesBefore`, which the `due_order` index serves.
                case .selectDue:
                    return
                        "SELECT imdb_id, failed_before, title, requests FROM temp.due ORDER BY kind, score DESC, position"
                }
            }
        }
    }
}
