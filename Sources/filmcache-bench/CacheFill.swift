import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

extension FilmCacheBench {
    /// Fills a cache with many films of realistic size and spread ages, for timing plans over it.
    struct Fill: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a cache of N films (IDs tt00000001…), fetched over the last 120 days; print rows/s.")

        @Option(help: "The cache file to create (removed first).")
        var db: String

        @Option(help: "Films to write.")
        var rows = 1_000_000

        @Option(help: "Films per transaction.")
        var batchSize = 10_000

        func run() throws {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
            let store = try CacheStore(path: db, logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
            let now = Date()
            let plot = String(repeating: "A long plot that runs on and on. ", count: 12)
            let clock = ContinuousClock()
            let start = clock.now
            var batch: [IMDBFilm] = []
            batch.reserveCapacity(batchSize)
            for n in 1...max(rows, 1) {
                let id = Self.imdbID(n)
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
                batch.append(film)
                if batch.count == batchSize {
                    try store.write(WriteBatch(films: batch))
                    batch.removeAll(keepingCapacity: true)
                }
            }
            try store.write(WriteBatch(films: batch))
            let elapsed = start.duration(to: clock.now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(
                String(
                    format: "filled %d films in %.1f s = %.0f rows/s", rows, seconds, Double(rows) / seconds))
        }

        /// The ID of the n-th film: `tt` and eight digits.
        static func imdbID(_ n: Int) -> String {
            let digits = String(n)
            return "tt" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        }
    }
}
