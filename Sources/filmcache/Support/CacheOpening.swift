import FilmCacheKit
import FilmCachePostgres
import FilmCacheSQLite
import Foundation
import Logging

extension CommonOptions {
    /// The database `--db` names, else the job file's `db`, else `filmcache.sqlite`: a PostgreSQL
    /// URL (`postgresql://USER@HOST:PORT/DBNAME`), or a file by its one name (``database(flag:job:)``).
    ///
    /// A URL that holds a password or cannot be read is exit 64 on `--db` and 78 in a job file;
    /// the message never shows the password.
    func location(job: JobFile? = nil) throws -> DatabaseLocation {
        try Self.location(flag: databasePath, job: job)
    }

    /// The database `flag` (`--db`, or the argument `flagName` names) names, else the job file's
    /// `db`, else `filmcache.sqlite`.
    static func location(flag: String?, job: JobFile?, flagName: String = "--db") throws -> DatabaseLocation {
        let value = flag ?? job?.databasePath ?? "filmcache.sqlite"
        guard DatabaseName.isURL(value) else {
            return .sqlite(path: try database(flag: flag, job: job, flagName: flagName))
        }
        do {
            return try DatabaseLocation(parsing: value)
        } catch {
            if flag != nil { throw fail("\(flagName): \(error.description)", status: ExitStatus.usage) }
            throw fail("db in \(job?.path ?? "the job file"): \(error.description)", status: ExitStatus.configuration)
        }
    }

    /// The database file `flag` names, else the job file's `db`, else `filmcache.sqlite` in the
    /// working directory, by its one name (``DatabaseName``).
    ///
    /// A path that names no file is exit 64 on `--db` and 78 in a job file; other names
    /// (more hard links, a dangling symlink) are exit 78.
    static func database(flag: String?, job: JobFile?, flagName: String = "--db") throws -> String {
        let path = flag ?? job?.databasePath ?? "filmcache.sqlite"
        do {
            return try DatabaseName.resolve(path)
        } catch {
            if case .notAFile = error, flag != nil {
                throw fail("\(flagName): \(error.description)", status: ExitStatus.usage)
            }
            throw fail(error.description, status: ExitStatus.configuration)
        }
    }

    /// Opens the cache at `location` for the command's life; close it with `close()`.
    ///
    /// A file is created and migrated unless `readOnly`; a PostgreSQL database gets its schema (once,
    /// however many hosts start at the same moment) unless `readOnly`, when one without this
    /// build's schema is refused. The password comes from the job's `db_password_file`,
    /// `PGPASSWORD`, or `PGPASSFILE`/`~/.pgpass`. A server that cannot be reached is exit 75 (the
    /// next run tries again), a password file that cannot be read 78, other failures 74.
    ///
    /// With `pool`, a PostgreSQL backend's pool runs in that service, in the command's group.
    func open(
        _ location: DatabaseLocation, job: JobFile?, logger: Logger, readOnly: Bool = false,
        pool: PostgresPoolService? = nil
    ) async throws -> any CacheBackend {
        try await Self.open(location, job: job, logger: logger, readOnly: readOnly, pool: pool)
    }

    /// Opens the cache at `location` (see the instance method).
    static func open(
        _ location: DatabaseLocation, job: JobFile?, logger: Logger, readOnly: Bool = false,
        pool: PostgresPoolService? = nil
    ) async throws -> any CacheBackend {
        switch location {
        case .sqlite(let path):
            do {
                return try await SQLiteBackend.open(path: path, logger: logger, readOnly: readOnly)
            } catch {
                throw fail(error.description, status: ExitStatus.ioError)
            }
        case .postgres(let server):
            let password = try Self.password(server, job: job, logger: logger)
            do {
                return try await PostgresBackend.open(
                    server, password: password, time: pool?.time ?? .system, logger: logger, readOnly: readOnly,
                    pool: pool)
            } catch {
                throw fail(error.description, status: ExitStatus.of(error))
            }
        }
    }

    /// Opens the cache at `location` for reading only, or `nil` when there is no cache there yet: a
    /// file not created, or a PostgreSQL database no warm has given the filmcache schema. The read
    /// commands answer both as the same empty cache, and never create either.
    static func openIfPresent(_ location: DatabaseLocation, job: JobFile?, logger: Logger) async throws
        -> (any CacheBackend)?
    {
        switch location {
        case .sqlite(let path):
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            return try await open(location, job: job, logger: logger, readOnly: true)
        case .postgres(let server):
            let password = try Self.password(server, job: job, logger: logger)
            do {
                return try await PostgresBackend.openIfPresent(
                    server, password: password, time: .system, logger: logger)
            } catch {
                throw fail(error.description, status: ExitStatus.of(error))
            }
        }
    }

    /// The cache at `location` for a command that only reads it (see `openForReading(logger:job:)`).
    static func openForReading(_ location: DatabaseLocation, job: JobFile?, logger: Logger) async throws
        -> any CacheBackend
    {
        if let store = try await openIfPresent(location, job: job, logger: logger) { return store }
        return try await open(.sqlite(path: ":memory:"), job: job, logger: logger)
    }

    /// The password for `server`: the job's `db_password_file`, `PGPASSWORD`, or the password file.
    private static func password(_ server: PostgresLocation, job: JobFile?, logger: Logger) throws -> String? {
        do {
            return try server.password(file: job?.databasePasswordFile) { logger.warning("\($0)") }
        } catch {
            throw fail(error.description, status: ExitStatus.configuration)
        }
    }
}
