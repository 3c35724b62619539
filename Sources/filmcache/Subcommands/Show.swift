import ArgumentParser
import FilmCacheKit
import Foundation

extension FilmCacheCommand {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one cached film. Reads the cache only; never calls OMDb.",
            discussion: """
                Exit status 1 when the film is not cached.

                Examples:
                  filmcache show tt0172495 --db films.sqlite
                  filmcache show tt0172495 --db films.sqlite --json | jq .ratings
                """
        )

        @OptionGroup var common: CommonOptions

        @Flag(help: "Print the canonical IMDBFilm JSON form.")
        var json = false

        @Argument(help: "The imdbID, e.g. tt0172495.")
        var imdbID: String

        func run() async throws {
            let database = common.database()
            guard FileManager.default.fileExists(atPath: database) else {
                throw fail("no cache database at \(database)", status: 1)
            }
            let store: CacheStore
            let film: IMDBFilm?
            do {
                store = try CacheStore(path: database, logger: common.makeLogger())
                film = try store.film(imdbID)
            } catch {
                throw fail(error.description, status: ExitStatus.ioError)
            }
            guard let film else {
                let why =
                    (try? store.lookup(imdbID)).flatMap { $0 }.map {
                        " (\($0.status == .notFound ? "OMDb does not know it" : "last fetch failed"): \($0.message ?? "")"
                            + ")"
                    } ?? ""
                throw fail("\(imdbID) is not in the cache\(why)", status: 1)
            }
            print(json ? FilmText.json(film) : FilmText.human(film))
        }
    }
}
