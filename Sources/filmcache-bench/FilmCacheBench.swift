import ArgumentParser
import FilmCacheKit
import Foundation
import Synchronization

/// Benchmarks of filmcache's stages; `Scripts/bench.sh` runs them beside their reference runs.
@main
struct FilmCacheBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filmcache-bench",
        abstract: "Measure filmcache's stages; Scripts/bench.sh runs these beside reference tools.",
        subcommands: [Fetch.self]
    )
}

extension FilmCacheBench {
    /// Fetch-only throughput of the libcurl multi transport over a URL list.
    struct Fetch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "GET every URL in a file; print requests/s.")

        @Option(help: "A file with one URL per line.")
        var urls: String

        @Option(help: "Concurrent transfers.")
        var maxInFlight = 32

        func run() async throws {
            let list = try String(contentsOfFile: urls, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
            var options = CurlMultiTransport.Options()
            options.maxInFlight = maxInFlight
            let transport = CurlMultiTransport(options: options)
            let next = Cursor()
            let clock = ContinuousClock()
            let start = clock.now
            let (ok, bytes) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for _ in 0..<maxInFlight {
                    group.addTask {
                        var ok = 0
                        var bytes = 0
                        while true {
                            let index = next.take()
                            guard index < list.count else { break }
                            let response = try await transport.get(list[index])
                            if response.status == 200 { ok += 1 }
                            bytes += response.body.count
                        }
                        return (ok, bytes)
                    }
                }
                return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
            }
            let elapsed = start.duration(to: clock.now)
            transport.shutdown()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(
                "filmcache fetch: \(list.count) requests, \(ok) OK, \(bytes) bytes in "
                    + String(format: "%.3f s = %.0f req/s", seconds, Double(list.count) / seconds))
        }
    }
}

/// A shared position in a list, taken one index at a time.
final class Cursor: Sendable {
    private let position = Atomic<Int>(0)

    /// The next index (starting at 0).
    func take() -> Int { position.wrappingAdd(1, ordering: .relaxed).oldValue }
}
