import ArgumentParser
import FilmCacheKit
import FilmCachePostgres
import Foundation
import Logging

extension FilmCacheCommand.Db {
    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy",
            abstract: "Copy a whole cache into another database: SQLite or PostgreSQL, either way. Never calls OMDb.",
            usage: "filmcache db copy <from> <to> [--json] [--page-size <rows>] [<options>]",
            discussion: """
                Everything moves: films (OMDb's bodies verbatim, with their fetched_at),
                negative answers, aliases, the title index, the poster index, the quota
                ledger (days, calls by the minute, limits seen, observed resets), the
                run history, and serve's stored answers and demand (how often apps asked for
                each film), so a cache outgrowing one host moves to PostgreSQL (and back)
                without a call to OMDb. FROM is only read: never created, migrated or
                written (a cache from an older filmcache is read as it is when it can be,
                and one too old for that is refused: run a warm on it first). TO is created
                or migrated when needed; what it holds is merged: the
                newer film wins (as in import), the later lookup, alias, title answer and
                poster check and stored answer win, the ledger keeps the larger count of each
                key's day and minute, demand the larger count of each film's requests, and a
                run is matched by its key and start. Copying again changes
                nothing. Each table is read in pages, each page written in one
                transaction; at the end every table is counted again on both sides.

                A PostgreSQL URL never holds the password: it comes from PGPASSWORD or
                PGPASSFILE/~/.pgpass. A SQLite FROM or TO is held with the run lock, so
                no warm writes it meanwhile.

                Exit status: 0 copied and verified; 1 the counts of a table disagree
                (named); 64 usage, a URL with a password, or FROM and TO the same
                database; 66 no database at FROM; 74 a database error; 75 a warm holds
                the run lock, or the PostgreSQL server cannot be reached.

                Examples:
                  filmcache db copy films.sqlite postgresql://filmcache@db/films
                  filmcache db copy postgresql://filmcache@db/films back.sqlite --json
                """
        )

        @Argument(help: "The cache to copy: a file, or postgresql://USER@HOST:PORT/DBNAME. Only read.")
        var from: String

        @Argument(help: "The database to copy it into: a file, or a PostgreSQL URL. Created when needed.")
        var to: String

        @Flag(help: "Print the counts as JSON.")
        var json = false

        @Option(help: "Rows a page holds: one read of FROM, one transaction in TO (1 to 100000).")
        var pageSize = CacheCopy.defaultPageSize

        @Flag(help: "Show no progress line on a terminal.")
        var noProgress = false

        @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
        var logLevel: Logger.Level = .notice

        @Option(help: "Log line format: human, logfmt, json. Default: human on a terminal, logfmt otherwise.")
        var logFormat: LogFormat?

        func validate() throws {
            guard (1...100_000).contains(pageSize) else {
                throw ValidationError("--page-size must be from 1 to 100000")
            }
        }

        func run() async throws {
            let logger = CommonOptions.makeLogger(level: logLevel, format: logFormat)
            let source = try CommonOptions.location(flag: from, job: nil, flagName: "FROM")
            let target = try CommonOptions.location(flag: to, job: nil, flagName: "TO")
            if case .sqlite(let path) = source, !FileManager.default.fileExists(atPath: path) {
                throw fail(
                    "no cache database at FROM \(LogText.escaped(path)); nothing copied", status: ExitStatus.noInput)
            }
            if Self.sameDatabase(source, target) {
                throw fail(
                    "FROM and TO are the same database (\(target.displayName)); nothing copied",
                    status: ExitStatus.usage)
            }
            // FROM first: a FROM that cannot be read leaves TO as it was, not even created.
            let sourceLock = try Self.lock(source, logger: logger, required: false)
            defer { sourceLock?.release() }
            let reader = try await CommonOptions.open(source, job: nil, logger: logger, readOnly: true)
            let tables: [TableCopy]
            do {
                tables = try await copy(from: reader, to: target, logger: logger)
            } catch {
                await reader.close()
                throw error
            }
            await reader.close()
            let (from, to) = (source.displayName, target.displayName)
            print(json ? CopyReport.json(tables, from: from, to: to) : CopyReport.text(tables, from: from, to: to))
            let mismatches = tables.compactMap(\.mismatch)
            if !mismatches.isEmpty {
                throw fail("the counts disagree: " + mismatches.joined(separator: "; "), status: 1)
            }
        }

        /// Copies `reader` into the database at `target`, created or migrated when needed and held
        /// with its run lock while it is written.
        func copy(from reader: any CacheTransfer, to target: DatabaseLocation, logger: Logger) async throws
            -> [TableCopy]
        {
            let lock = try Self.lock(target, logger: logger)
            defer { lock?.release() }
            let writer = try await CommonOptions.open(target, job: nil, logger: logger)
            defer { TerminalStatusLine.standardError.clear() }
            do {
                // Two names the checks before opening cannot tell apart (host aliases, bind mounts).
                if try await reader.databaseIdentity() == writer.databaseIdentity() {
                    throw fail(
                        "FROM and TO are the same database (\(target.displayName)); nothing copied",
                        status: ExitStatus.usage)
                }
                let showsProgress = !noProgress && TerminalStatusLine.standardErrorIsTerminal
                var meter: (table: CacheTable, meter: TransferMeter)?
                let tables = try await CacheCopy(
                    from: reader, to: writer, pageSize: pageSize, now: try ReferenceTime.now()
                ).run {
                    table, read, total in
                    guard showsProgress else { return }
                    if meter?.table != table { meter = (table, TransferMeter(total: total, unit: "rows")) }
                    meter?.meter.show(read, detail: "  \(table.rawValue)")
                }
                await writer.close()
                return tables
            } catch let error as StoreError {
                await writer.close()
                throw fail(error.description, status: ExitStatus.of(error))
            } catch {
                await writer.close()
                throw error
            }
        }

        /// Whether the two names are one database by what they say: one file (both resolved through
        /// symlinks), or one server's database however its user is named.
        static func sameDatabase(_ a: DatabaseLocation, _ b: DatabaseLocation) -> Bool {
            switch (a, b) {
            case (.sqlite(let x), .sqlite(let y)): x == y
            case (.postgres(let x), .postgres(let y)):
                x.host.lowercased() == y.host.lowercased() && x.port == y.port && x.database == y.database
            default: false
            }
        }

        /// The run lock of a SQLite cache, so that no warm writes it while it is copied; none for PostgreSQL.
        /// A lock file that cannot be made beside a cache that is only read (a directory the user
        /// cannot write) is warned about when not `required`.
        static func lock(_ location: DatabaseLocation, logger: Logger, required: Bool = true) throws -> RunLock? {
            guard case .sqlite(let path) = location else { return nil }
            do {
                return try RunLock.acquire(forDatabase: path)
            } catch .unavailable(let path, let reason) where !required {
                logger.warning("cannot take the run lock \(path) (\(reason)); a warm could write FROM during the copy")
                return nil
            } catch .held(let path, let pid) {
                let who = pid.map { "pid \($0)" } ?? "pid unknown"
                throw fail(
                    "a warm holds \(path) (\(who)); copy when it has finished", status: ExitStatus.tryAgainLater)
            } catch {
                throw fail(error.description, status: ExitStatus.of(error))
            }
        }
    }
}
