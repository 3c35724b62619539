import ArgumentParser
import FilmCacheKit
import FilmCacheSQLite
import Foundation

extension FilmCacheCommand {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the cached films to standard output as JSON Lines or CSV.",
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

                A PostgreSQL cache is not exported: dump it with pg_dump, or copy it to a
                file first (filmcache db copy URL films.sqlite).

                Exit status: 0 written; 64 usage (a PostgreSQL URL at --db); 66 no database
                at --db; 74 the database or standard output failed (a full disk, a reader
                that went away: | head).

                Examples:
                  filmcache export --db films.sqlite > films.jsonl
                  filmcache export --db films.sqlite --format csv > films.csv
                  filmcache export --db films.sqlite --since 2026-11-01 \\
                    | gzip > recent.jsonl.gz
                """
        )

        @OptionGroup var common: CommonOptions

        @Option(help: "jsonl (canonical IMDBFilm lines with rawJSON) or csv (the films table's columns).")
        var format: ExportFormat = .jsonl

        @Option(
            help: ArgumentHelp(
                "Only films fetched at or after this instant: 2026-11-01T00:00:00Z, an offset form, or a date"
                    + " (midnight UTC).", valueName: "instant"))
        var since: InstantArgument?

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
            // Its reads and writes block (on a locked file, on a slow reader of the output): on a
            // queue of their own, never on a thread of the cooperative pool.
            try await DispatchQueue(label: "filmcache.export").run {
                try Self.export(database, format: format, since: since, noProgress: noProgress)
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
