import ArgumentParser
import FilmCacheKit
import FilmCachePostgres
import FilmCacheSQLite
import Foundation
import Logging

extension FilmCacheBench {
    /// Fills a cache with many films of realistic size and spread ages, for timing plans over it.
    struct Fill: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a cache of N films (IDs tt00000001…), fetched over the last 120 days; print rows/s.",
            discussion: """
                A path is a SQLite file, removed first and written through CacheStore.write. A URL
                (postgresql://USER@HOST:PORT/DB, the password from PGPASSWORD or ~/.pgpass) is an empty
                PostgreSQL database, written through the backend's importFilms as an import would.
                """)

        @Option(help: "The cache to fill: a file to create (removed first), or an empty PostgreSQL database's URL.")
        var db: String

        @Option(help: "Films to write.")
        var rows = 1_000_000

        @Option(help: "Films per transaction.")
        var batchSize = 10_000

        func run() async throws {
            let logger = Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }
            let now = Date()
            let clock = ContinuousClock()
            let start = clock.now
            switch try DatabaseLocation(parsing: db) {
            case .sqlite(let path):
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                let store = try CacheStore(path: path, logger: logger)
                for first in stride(from: 1, through: max(rows, 1), by: batchSize) {
                    try store.write(WriteBatch(films: batch(from: first, now: now)))
                }
            case .postgres(let location):
                let password = try location.password(file: nil) { print("warning: \($0)") }
                try await PostgresBackend.withBackend(
                    location, password: password, time: .system, logger: logger
                ) { backend in
                    var films = batch(from: 1, now: now)
                    var written = 0
                    while !films.isEmpty {
                        written += films.count
                        let first = written + 1
                        // The next batch is made while the server writes this one.
                        async let next = batch(from: first, now: now)
                        _ = try await backend.importFilms(films, now: Date())
                        films = await next
                    }
                }
            }
            let elapsed = start.duration(to: clock.now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(
                String(
                    format: "filled %d films in %.1f s = %.0f rows/s", rows, seconds, Double(rows) / seconds))
        }

        /// Films `first` to `first + batchSize - 1` (none past `rows`).
        private func batch(from first: Int, now: Date) -> [IMDBFilm] {
            let plot = String(repeating: "A long plot that runs on and on. ", count: 12)
            let last = min(max(rows, 1), first + batchSize - 1)
            guard first <= last else { return [] }
            return (first...last).map { Self.film($0, now: now, plot: plot) }
        }

        /// The n-th film: a movie or series with its lists filled, fetched up to 120 days before `now`.
        static func film(_ n: Int, now: Date, plot: String) -> IMDBFilm {
            let id = imdbID(n)
            var film = IMDBFilm(
                imdbID: id, lastFetched: now.addingTimeInterval(-Double(n % 120) * 86_400 - Double(n % 977)),
                dataVersion: FilmNormalizer.dataVersion,
                rawJSON: #"{"Title":"Film \#(n)","Plot":"\#(plot)","imdbID":"\#(id)","Response":"True"}"#)
            film.title = "Film \(n)"
            film.type = n % 7 == 0 ? .series : .movie
            film.yearStart = 1930 + n % 96
            if n % 14 == 0 { film.yearEnd = film.yearStart.map { $0 + 3 } }
            film.released = CalendarDate(year: 1930 + n % 96, month: 1 + n % 12, day: 1 + n % 28)
            film.genres = ["Drama", n % 2 == 0 ? "Comedy" : "Thriller"]
            film.actors = ["Actor \(n % 5_000)", "Actor \(n % 3_001)", "Actor \(n % 701)"]
            film.plot = plot
            return film
        }

        /// The ID of the n-th film: `tt` and eight digits.
        static func imdbID(_ n: Int) -> String {
            let digits = String(n)
            return "tt" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        }
    }
}
