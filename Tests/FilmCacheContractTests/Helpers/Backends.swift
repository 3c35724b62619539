import FilmCachePostgres
import Foundation
import Logging
import PostgresScratch

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// The backends the contract suite runs over: every contract test runs once on each.
enum BackendKind: String, CaseIterable, CustomStringConvertible, Sendable {
    case memory
    case sqlite
    case postgres

    var description: String { rawValue }

    /// The kinds that are databases with a schema (a file, a server): what schema tests run over.
    static let databases: [BackendKind] = [.sqlite, .postgres]

    /// Whether one process at a time writes it, so every claim and every flight is granted.
    var hasOneWriter: Bool { self != .postgres }

    /// Runs `body` with a new, empty database of this kind, closed after.
    func withBackend<T: Sendable>(_ body: (any CacheBackend, BackendHooks) async throws -> T) async throws -> T {
        switch self {
        case .memory:
            let backend = MemoryBackend(wall: .system)
            return try await body(backend, BackendHooks(expireRunLeases: {}))
        case .sqlite:
            let directory = TemporaryDirectory()
            let backend = try SQLiteBackend(path: directory.file("cache.sqlite"), logger: SampleFilms.logger)
            defer { _ = directory }
            return try await body(backend, BackendHooks(expireRunLeases: {}))
        case .postgres:
            let database = try Scratch.database()
            return try await PostgresBackend.withBackend(
                database.location, password: database.server.password, time: .system, logger: SampleFilms.logger
            ) { backend in
                try await body(backend, BackendHooks(expireRunLeases: { try database.expireRunLeases() }))
            }
        }
    }
}

/// What a contract test does to a backend from outside: what a host that died would leave behind.
struct BackendHooks: Sendable {
    /// Makes every unfinished run's lease pass, as when the processes holding them were killed
    /// (memory and SQLite need nothing: with one writer no other warm is going).
    var expireRunLeases: @Sendable () throws -> Void
}

/// One database of a kind that a test opens as often as it likes, at once or one after another.
struct SharedDatabase: Sendable {
    /// Opens a backend on the database; the caller closes it.
    let open: @Sendable (_ readOnly: Bool) async throws -> any CacheBackend
    /// Runs statements on the database outside filmcache (as its owner).
    let sql: @Sendable (String) throws -> Void

    /// Opens a backend, runs `body` with it and closes it.
    func withBackend<T: Sendable>(readOnly: Bool = false, _ body: (any CacheBackend) async throws -> T)
        async throws -> T
    {
        let backend = try await open(readOnly)
        let result: Result<T, any Error>
        do { result = .success(try await body(backend)) } catch { result = .failure(error) }
        await backend.close()
        return try result.get()
    }
}

extension BackendKind {
    /// Runs `body` with a new, empty database of this kind, set up by one writable open.
    func withSharedDatabase<T: Sendable>(_ body: (SharedDatabase) async throws -> T) async throws -> T {
        let database: SharedDatabase
        let directory = TemporaryDirectory()
        defer { _ = directory }
        switch self {
        case .memory:
            // One cache however often it is opened; it has no SQL to run.
            let backend = MemoryBackend(wall: .system)
            database = SharedDatabase(
                open: { _ in backend },
                sql: { _ in throw StoreError.unavailable(database: backend.displayName, message: "memory runs no SQL") }
            )
        case .sqlite:
            let path = directory.file("cache.sqlite")
            database = SharedDatabase(
                open: { readOnly in
                    try await SQLiteBackend.open(path: path, logger: SampleFilms.logger, readOnly: readOnly)
                },
                sql: { statements in try SQLiteConnection(path: path).execute(statements) })
        case .postgres:
            let scratch = try Scratch.database()
            database = SharedDatabase(
                open: { readOnly in
                    try await PostgresBackend.open(
                        scratch.location, password: scratch.server.password, time: .system, logger: SampleFilms.logger,
                        readOnly: readOnly)
                },
                sql: { statements in try scratch.sql(statements) })
        }
        try await database.withBackend { _ in }
        return try await body(database)
    }
}
