import ArgumentParser
import FilmCacheKit
import Foundation

extension FilmCacheCommand {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Load films from export files, or OMDb bodies one a line, into the cache. Never calls OMDb.",
            usage: "filmcache import [--db <db>] [<options>] <file> ...",
            discussion: """
                Each FILE (- for standard input) is read as it streams; its form is told by
                its content: a { first is JSON Lines (export lines, or OMDb bodies one a
                line, which are normalized as a warm would and count as fetched now), else
                CSV as filmcache export writes it. The newer fetched_at wins: a film the
                cache already holds as new or newer is kept, so importing twice changes
                nothing and an old backup never overwrites fresher films. A line that is not
                a film is a warning naming file:line (the first 20 of a file; then a count),
                and is skipped; so is a film fetched in the future by this host's clock (more
                than 5 minutes ahead), which would stay fresh until then. A broken CSV record
                (a quote never closed) costs that record only: the next record starting with
                an imdbID is read again. The database is created or migrated when needed;
                import takes no run lock and can run beside a warm.

                TMDb's lines of an export ({"tmdb":...} entries, {"tmdb_find":...} mappings)
                are loaded the same way, in transactions of their own: the newer fetched_at
                or checked_at wins, and each entry's columns are read again from its body,
                whose id and kind must be the line's. Into a cache that keeps no TMDb
                entries they are bad lines. A block after the films' counts says what
                became of them.

                Exit status: 0 every line imported or kept; 64 usage; 65 lines were skipped,
                a file held no film, or held nothing at all (an empty input, a pipe whose
                writer failed), each said on standard error, what could be read imported;
                66 a file that cannot be opened (nothing is imported then); 74 a file that
                cannot be read, or a database error.

                Examples:
                  filmcache import --db restored.sqlite films.jsonl
                  filmcache import --db films.sqlite films.csv more.jsonl
                  filmcache export --db a.sqlite | filmcache import --db b.sqlite -
                """
        )

        @OptionGroup var common: CommonOptions

        @Flag(help: "Show no progress line on a terminal.")
        var noProgress = false

        @Argument(help: "Export files (JSON Lines or CSV) or files of OMDb bodies, one a line; - is standard input.")
        var files: [String] = []

        func validate() throws {
            guard !files.isEmpty else {
                throw ValidationError("name at least one file to import (- for standard input)")
            }
        }

        func run() async throws {
            let logger = try common.makeLogger()
            let location = try common.location()
            let database = location.displayName
            let now = try ReferenceTime.now()
            var inputs: [FilmImport.Input] = []
            for file in files {
                do {
                    inputs.append(try FilmImport.open(file))
                } catch {
                    throw fail(error.description + "; nothing imported", status: ExitStatus.noInput)
                }
            }
            let store = try await common.open(location, job: nil, logger: logger)
            let importer = FilmImport(store: store, tmdb: store, now: now, logger: logger)
            // An empty cache's secondary index is built once, after the films (SQLite): on every path out.
            do {
                try await store.beginImport()
            } catch {
                throw fail(error.description + "; nothing imported", status: ExitStatus.of(error))
            }
            let showsProgress = !noProgress && TerminalStatusLine.standardErrorIsTerminal
            var total = ImportTally()
            var empty: [String] = []
            var nothing: [String] = []
            defer { TerminalStatusLine.standardError.clear() }
            for input in inputs {
                var meter = showsProgress ? TransferMeter(total: nil, unit: "lines") : nil
                let before = total
                do {
                    let tally = try await importer.read(input) { tally in
                        meter?.show(
                            before.read + tally.read,
                            detail: "  \(input.name): \(tally.films) films, \(tally.bad) bad")
                    }
                    total += tally
                    if tally.read == 0 {
                        nothing.append(input.name)
                    } else if tally.imported == 0 {
                        empty.append(input.name)
                    }
                } catch {
                    TerminalStatusLine.standardError.clear()
                    try? await store.finishImport()
                    Self.printReport(total, files: inputs.count, database: database)
                    throw fail(error.description, status: ExitStatus.of(error))
                }
            }
            TerminalStatusLine.standardError.clear()
            do {
                try await store.finishImport()
            } catch {
                await store.close()
                Self.printReport(total, files: inputs.count, database: database)
                throw fail(
                    "every film read is stored, but the films' fetched_at index could not be built ("
                        + error.description + "); the next command that opens the cache for writing builds it",
                    status: ExitStatus.of(error))
            }
            await store.close()
            Self.printReport(total, files: inputs.count, database: database)
            var problems: [String] = []
            if !nothing.isEmpty {
                problems.append(
                    "nothing was read from \(nothing.map(LogText.escaped).joined(separator: ", "))"
                        + " (an empty input, or a pipe whose writer failed): no film imported from it")
            }
            if !empty.isEmpty {
                problems.append(
                    "no line of \(empty.map(LogText.escaped).joined(separator: ", ")) is a film"
                        + " (or a TMDb entry) that could be imported")
            }
            if total.bad > 0 {
                problems.append("\(total.bad) line\(total.bad == 1 ? " was" : "s were") skipped (see the warnings)")
            }
            if !problems.isEmpty {
                throw fail(problems.joined(separator: "; "), status: ExitStatus.dataError)
            }
        }

        /// Prints the films' counts, and TMDb's when any TMDb line was imported.
        private static func printReport(_ total: ImportTally, files: Int, database: String) {
            print(ImportReport.text(total, files: files, database: database))
            if total.tmdb.entries + total.tmdb.mappings > 0 { print(TMDbImportCounts.report(total.tmdb)) }
        }
    }
}
