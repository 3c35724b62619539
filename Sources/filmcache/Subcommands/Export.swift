import ArgumentParser
import FilmCacheKit
import FilmCacheSQLite
import Foundation

extension FilmCacheCommand {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the cached films (and TMDb's entries) to standard output as JSON Lines or CSV.",
            usage: "filmcache export [--db <db>] [--format <format>] [--since <instant>]",
            discussion: """
                Reads the cache only: the database is opened read-only, never created or
                migrated, and OMDb is never called. JSON Lines (the default) holds one
                canonical IMDBFilm a line, compact, with OMDb's body in "rawJSON"
                (docs/IMDBFILM.md); CSV holds the films table's columns, header first, list
                columns as their JSON text. Either one loads back with filmcache import.
                Films come in imdbID order, read in short pages, so memory stays flat and a
                running warm is never held up; on a terminal a progress line is shown on
                standard error.

                A cache that holds TMDb's entries too exports them after the films, as lines
                of their own: {"tmdb":{...,"fetched_at":...,"body":{...}}} with TMDb's body
                embedded byte for byte, then {"tmdb_find":{"imdb_id":...,"media_type":...,
                "tmdb_id":...,"checked_at":...}}, TMDb's answer to which entry an IMDb ID is
                (both null when none). --source omdb or --source tmdb exports one source;
                the default is every source the cache holds, so a cache of OMDb's films
                alone exports exactly what it always did. CSV holds one source's columns:
                --source tmdb --format csv writes TMDb's entries' columns (no body, no
                mappings), and a CSV export of a cache holding both needs --source.

                A PostgreSQL cache is not exported: dump it with pg_dump, or copy it to a
                file first (filmcache db copy URL films.sqlite).

                Exit status: 0 written; 64 usage (a PostgreSQL URL at --db, CSV of both
                sources); 66 no database at --db; 74 the database or standard output
                failed (a full disk, a reader that went away: | head).

                Examples:
                  filmcache export --db films.sqlite > films.jsonl
                  filmcache export --db films.sqlite --format csv > films.csv
                  filmcache export --db films.sqlite --since 2026-11-01 \\
                    | gzip > recent.jsonl.gz
                  filmcache export --db films.sqlite --source tmdb --format csv > tmdb.csv
                """
        )

        @OptionGroup var common: CommonOptions

        @Option(help: "jsonl (canonical IMDBFilm lines with rawJSON) or csv (the films table's columns).")
        var format: ExportFormat = .jsonl

        @Option(
            help: ArgumentHelp(
                "Only films (and TMDb entries and mappings) fetched at or after this instant: 2026-11-01T00:00:00Z,"
                    + " an offset form, or a date (midnight UTC).", valueName: "instant"))
        var since: InstantArgument?

        @Option(
            name: .customLong("source"),
            help: ArgumentHelp(
                "omdb (the films) or tmdb (TMDb's entries and mappings); repeat for both. Default: every source the"
                    + " cache holds.", valueName: "source"))
        var sources: [ExportSource] = []

        @Flag(help: "Show no progress line on a terminal.")
        var noProgress = false

        func run() async throws {
            guard case .sqlite(let database) = try common.location() else {
                throw fail(
                    "export reads a SQLite cache file; a PostgreSQL cache is dumped with pg_dump",
                    status: ExitStatus.usage)
            }
            guard FileManager.default.fileExists(atPath: database) else {
                throw fail("no cache database at \(LogText.escaped(database))", status: ExitStatus.noInput)
            }
            let (format, since, noProgress) = (format, since?.date, noProgress)
            // TMDb's side, when asked for or when the cache may hold it: opened read-only.
            var cache: (any CacheBackend)?
            var tmdb: (any TMDbStore)?
            if sources.isEmpty || sources.contains(.tmdb) {
                let opened = try await common.open(
                    .sqlite(path: database), job: nil, logger: try common.makeLogger(), readOnly: true)
                cache = opened
                tmdb = opened
            }
            var writesTMDb = sources.contains(.tmdb)
            if sources.isEmpty, let tmdb {
                do {
                    writesTMDb = try await TMDbExport(store: tmdb).holdsAny()
                } catch {
                    throw fail(error.description, status: ExitStatus.ioError)
                }
            }
            let writesFilms = sources.isEmpty || sources.contains(.omdb)
            if format == .csv && writesFilms && writesTMDb {
                throw fail(
                    (sources.isEmpty ? "this cache holds OMDb's films and TMDb's entries, and " : "")
                        + "a CSV export holds one source's columns: name it with --source omdb or --source tmdb"
                        + " (JSON Lines holds both)", status: ExitStatus.usage)
            }
            // Its reads and writes block (on a locked file, on a slow reader of the output): on a
            // queue of their own, never on a thread of the cooperative pool.
            let queue = DispatchQueue(label: "filmcache.export")
            if writesFilms {
                try await queue.run {
                    try Self.export(database, format: format, since: since, noProgress: noProgress)
                }
            }
            if writesTMDb {
                if let tmdb {
                    try await Self.exportTMDb(
                        tmdb, format: format, since: since, queue: queue, database: database,
                        showsProgress: !noProgress && TerminalStatusLine.standardErrorIsTerminal && isatty(1) == 0)
                } else {
                    if format == .csv { try await Self.write(TMDbCSV.header, on: queue) }
                    StandardError.write("filmcache export: \(database) keeps no TMDb entries; none written")
                }
            }
            await cache?.close()
        }

        /// Writes TMDb's entries (and, as JSON Lines, its mappings) to standard output.
        private static func exportTMDb(
            _ store: any TMDbStore, format: ExportFormat, since: Date?, queue: DispatchQueue, database: String,
            showsProgress: Bool
        ) async throws {
            let export = TMDbExport(store: store, since: since)
            let sink: TMDbExport.Sink = { (bytes) throws(TransferError) in try await Self.write(bytes, on: queue) }
            do {
                switch format {
                case .jsonl:
                    let written = try await export.writeLines(to: sink)
                    if showsProgress {
                        StandardError.write(
                            "filmcache export: \(written.entries) TMDb entries, \(written.mappings) mappings"
                                + " from \(database)")
                    }
                case .csv:
                    let written = try await export.writeCSV(to: sink)
                    if showsProgress {
                        StandardError.write("filmcache export: \(written) TMDb entries from \(database)")
                    }
                }
            } catch .outputClosed {
                throw fail("standard output was closed; the export stopped before its end", status: ExitStatus.ioError)
            } catch {
                throw fail(error.description, status: ExitStatus.ioError)
            }
        }

        /// Writes `bytes` to standard output on `queue`.
        private static func write(_ bytes: [UInt8], on queue: DispatchQueue) async throws(TransferError) {
            try await queue.run { () throws(TransferError) in
                guard let failure = FileWrite.all(bytes, to: 1) else { return }
                if failure == EPIPE { throw .outputClosed }
                throw .cannotWrite(reason: String(cString: strerror(failure)))
            }
        }

        /// Writes the films of the file at `database` to standard output.
        private static func export(_ database: String, format: ExportFormat, since: Date?, noProgress: Bool) throws {
            let export: CacheExport
            do {
                export = try CacheExport(path: database)
            } catch {
                throw fail(error.description, status: ExitStatus.ioError)
            }
            // On a terminal, and only when the films go elsewhere: a line redrawn between them would garble them.
            let showsProgress = !noProgress && TerminalStatusLine.standardErrorIsTerminal && isatty(1) == 0
            var meter = showsProgress ? TransferMeter(total: try? export.count(since: since), unit: "films") : nil
            defer { TerminalStatusLine.standardError.clear() }
            do {
                let written = try export.write(format, since: since, to: 1) { count in meter?.show(count) }
                if showsProgress {
                    TerminalStatusLine.standardError.clear()
                    StandardError.write("filmcache export: \(written) films from \(database)")
                }
            } catch .outputClosed {
                // The reader went away (`export | head`): the output is cut short, which the status says.
                throw fail("standard output was closed; the export stopped before its end", status: ExitStatus.ioError)
            } catch {
                throw fail(error.description, status: ExitStatus.ioError)
            }
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}

extension ExportSource: ExpressibleByArgument {}
