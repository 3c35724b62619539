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
        var imdbID: String { PlainTextWorklist.imdbID(in: title.trimmingCharacters(in: .whitespaces)) ?? title }

        func validate() throws {
            guard PlainTextWorklist.imdbID(in: title.trimmingCharacters(in: .whitespaces)) != nil else {
                throw ValidationError(
                    "\"\(LogText.escaped(title))\" is not an IMDb ID (tt and 7 to 10 digits) or an IMDb title URL")
            }
        }

        func run() async throws {
            let imdbID = imdbID
            let location = try CommonOptions.location(flag: databasePath, job: nil)
            let logger = Logger(label: "filmcache") {
                var handler = LineLogHandler(label: $0, format: .logfmt, now: WallClock.system.now)
                handler.logLevel = logLevel
                return handler
            }
            guard let store = try await CommonOptions.openIfPresent(location, job: nil, logger: logger) else {
                throw fail("no cache database at \(location.displayName)", status: 1)
            }
            var film: IMDBFilm?
            var tmdb: TMDbSide?
            do {
                film = try await store.film(imdbID)
                var target: String?
                if film == nil, let alias = try await store.aliasTarget(of: imdbID) {
                    // IMDb merged the asked ID into another title; OMDb answers it with that one.
                    StandardError.write(
                        "filmcache: \(imdbID) is an alias of \(alias) (IMDb merged them); showing \(alias)")
                    film = try await store.film(alias)
                    target = alias
                }
                tmdb = try await TMDbSide.load(imdbID, from: store)
                if tmdb == nil, let target { tmdb = try await TMDbSide.load(target, from: store) }
            } catch {
                throw fail(error.description, status: CommonOptions.exitStatus(for: error))
            }
            guard film != nil || tmdb?.film != nil else {
                let lookup = try? await store.lookup(imdbID)
                let why =
                    lookup.flatMap { $0 }.map {
                        " (\($0.status == .notFound ? "OMDb does not know it" : "last fetch failed"): \($0.message ?? "")"
                            + ")"
                    } ?? ""
                throw fail("\(imdbID) is not in the cache\(why)", status: 1)
            }
            if json {
                print(TMDbFilmText.json(imdbID: film?.imdbID ?? imdbID, film: film, tmdb: tmdb))
            } else {
                let blocks = [film.map(FilmText.human), tmdb.map(TMDbFilmText.human)]
                print(blocks.compactMap { $0 }.joined(separator: "\n\n"))
            }
        }
    }
}
