import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

extension FilmCacheCommand {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Print one cached film. Reads the cache only; never calls OMDb.",
            usage: "filmcache show [--db <db>] [--json] <imdb-id>",
            discussion: """
                Exit status 1 when the film is not cached. When the cache also holds TMDb's
                entry for the ID, it follows the film (with --json, as a "tmdb" object); an ID
                only TMDb's side holds is shown alone.

                Examples:
                  filmcache show tt0172495 --db films.sqlite
                  filmcache show tt0172495 --db films.sqlite --json | jq .ratings
                """
        )

        @Option(name: .customLong("db"), help: "The cache database file. Default filmcache.sqlite.")
        var databasePath: String = "filmcache.sqlite"

        @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
        var logLevel: Logger.Level = .notice

        @Flag(help: "Print the canonical IMDBFilm JSON form.")
        var json = false

        @Argument(help: ArgumentHelp("The imdbID, e.g. tt0172495, or an IMDb title URL.", valueName: "imdb-id"))
        var title: String

        /// The ID `title` names.
        var imdbID: String { FilmShowing.imdbID(named: title) ?? title }

        func validate() throws {
            guard FilmShowing.imdbID(named: title) != nil else {
                throw ValidationError(
                    "\"\(LogText.escaped(title))\" is not an IMDb ID (tt and 7 to 10 digits) or an IMDb title URL")
            }
        }

        func run() async throws {
            let imdbID = imdbID
            let location = try CommonOptions.location(flag: databasePath, job: nil)
            let logger = FilmShowing.logger(level: logLevel)
            guard let store = try await CommonOptions.openIfPresent(location, job: nil, logger: logger) else {
                throw fail("no cache database at \(location.displayName)", status: 1)
            }
            do {
                print(try await FilmShowing.text(of: imdbID, in: store, json: json))
            } catch {
                throw fail(error.message, status: error.status)
            }
        }
    }
}
