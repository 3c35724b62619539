import ArgumentParser
import FilmCacheKit
import FilmCacheSQLite
import Foundation
import Logging

extension FilmCacheBench {
    /// Upsert throughput of normalized films into a fresh cache file, then over the same rows again.
    struct Upsert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Normalize a corpus (untimed), then time upserting it into a new cache; print rows/s.",
            discussion: """
                Films are written through CacheStore.write in batches (one transaction each, the
                prepared statement reused), as warm writes them: first into an empty file (inserts),
                then the same films again (updates). Scripts/bench_upsert.py reads the rows back from
                the file and times Python's sqlite3 executemany of them into the same schema.
                """)

        @Option(help: "A directory of OMDb bodies, one *.json file each.")
        var corpus: String

        @Option(help: "The cache file to create (removed first).")
        var db: String

        @Option(help: "Films per transaction.")
        var batchSize = 256

        func run() throws {
            let normalizer = FilmNormalizer()
            let names = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".json") }
                .sorted()
            let fetchedAt = Date()
            let films = try names.compactMap { name -> IMDBFilm? in
                let body = Array(try Data(contentsOf: URL(fileURLWithPath: corpus + "/" + name)))
                let id = String(name.dropLast(5))
                guard
                    case .film(let normalized)? = try? normalizer.normalize(
                        body: body, requestedID: id, fetchedAt: fetchedAt)
                else { return nil }
                return normalized.film
            }
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
            let store = try CacheStore(path: db, logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
            for pass in ["insert", "update"] {
                let clock = ContinuousClock()
                let start = clock.now
                var index = 0
                while index < films.count {
                    let end = min(index + batchSize, films.count)
                    try store.write(WriteBatch(films: Array(films[index..<end])))
                    index = end
                }
                let elapsed = start.duration(to: clock.now)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                print(
                    String(
                        format: "filmcache upsert (%@): %d rows in %.3f s = %.0f rows/s", pass, films.count, seconds,
                        Double(films.count) / seconds))
            }
        }
    }
}
