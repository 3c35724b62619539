import Foundation
import PostgresScratch
import Testing

/// The cache database an end-to-end test attacks, on either backend: a SQLite file in a scratch
/// directory, or a new database on the process's scratch PostgreSQL server.
///
/// A test written against this runs unchanged on both, so one promise has one test. Checks read the
/// database with the backend's own shell (`sqlite3`, `psql`), as an operator would; both print a row
/// a line and columns joined by `|`. Where the two dialects differ, a method here says it once.
struct CacheDatabase: Sendable {
    /// The two backends.
    enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgresql

        /// The backend's name, as test results show it.
        var testDescription: String { rawValue }
    }

    /// Which backend holds the cache.
    let backend: Backend
    /// What `--db` names: the file's path or the database's URL (which holds no password).
    let argument: String
    /// What every `filmcache` run against it needs in its environment: PostgreSQL's password.
    let environment: [String: String]
    /// The scratch directory (for SQLite, the file's).
    let scratch: ReliabilityScratch
    private let server: ScratchPostgres?
    private let database: String

    /// A new, empty cache on `backend`: `scratch.db` for SQLite, a new database on
    /// `ScratchPostgres.shared()` for PostgreSQL (reached at `host`, loopback unless given).
    init(_ backend: Backend, in scratch: ReliabilityScratch, server: ScratchPostgres? = nil, host: String? = nil)
        throws
    {
        self.backend = backend
        self.scratch = scratch
        switch backend {
        case .sqlite:
            self.server = nil
            database = scratch.db
            argument = scratch.db
            environment = [:]
        case .postgresql:
            let server = try server ?? ScratchPostgres.shared()
            self.server = server
            database = try server.createDatabase()
            argument = server.url(database: database, host: host ?? "127.0.0.1")
            environment = ["PGPASSWORD": server.password]
        }
    }

    /// `environment` with `extra` added (the API key, a pinned clock).
    func environment(_ extra: [String: String]) -> [String: String] {
        environment.merging(extra) { $1 }
    }

    /// Runs `query` with the backend's shell; its rows, one a line, columns joined by `|`.
    func query(_ query: String) throws -> String {
        switch backend {
        case .sqlite: try scratch.sqlite(query)
        case .postgresql: try (server ?? ScratchPostgres.shared()).sql(query, database: database)
        }
    }

    /// The rows of a one-column query.
    func column(_ query: String) throws -> [String] {
        try self.query(query).split(separator: "\n").map(String.init)
    }

    /// The `Int` a one-value query gives; -1 when it gives something else.
    func int(_ query: String) throws -> Int {
        Int(try self.query(query)) ?? -1
    }

    /// The calls the ledger counts, over every key and day.
    func ledgerCalls() throws -> Int {
        try int("SELECT coalesce(sum(used), 0) FROM quota_ledger")
    }

    /// Whether the schema is there (a kill before its first commit leaves none; the next run makes it).
    func hasSchema() throws -> Bool {
        switch backend {
        case .sqlite: try query("SELECT count(*) FROM sqlite_master WHERE name IN ('films', 'quota_ledger')") == "2"
        case .postgresql:
            try query("SELECT to_regclass('films') IS NOT NULL AND to_regclass('quota_ledger') IS NOT NULL") == "t"
        }
    }

    /// SQL that gives the instant in `column` as the reports print it (`2031-03-11T12:00:00Z`):
    /// SQLite stores that text, PostgreSQL a `timestamptz` its shell would print otherwise.
    func instant(_ column: String) -> String {
        switch backend {
        case .sqlite: column
        case .postgresql: #"to_char(\#(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')"#
        }
    }

    /// `filmcache plan --json --ids` over `worklists` as a dictionary; `extra` flags and `environment` added.
    func plan(_ worklists: [String], _ extra: [String] = [], environment: [String: String] = [:]) throws
        -> [String: Any]
    {
        try scratch.plan(worklists, extra, database: argument, environment: self.environment(environment))
    }
}
