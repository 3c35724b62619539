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
        subcommands: [Fetch.self, Decode.self, Upsert.self, Fill.self, Rate.self]
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
            let list = try String(contentsOfFile: urls, encoding: .utf8).split(whereSeparator: \.isNewline).map(
                String.init)
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

extension FilmCacheBench {
    /// Decode + normalize throughput on one core over the bodies in a directory.
    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode and normalize every *.json body in a directory, round-robin; print films/s.")

        @Option(help: "A directory of OMDb bodies, one *.json file each.")
        var corpus: String

        @Option(help: "How long to measure.")
        var seconds: Double = 3

        func run() throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".json") }
                .sorted()
            let bodies = try names.map { Array(try Data(contentsOf: URL(fileURLWithPath: corpus + "/" + $0))) }
            let result = DecodeBenchmark.run(bodies: bodies, seconds: seconds)
            print(String(format: "filmcache decode+normalize: %.0f films/s", Double(result.films) / result.seconds))
        }
    }
}

extension FilmCacheBench {
    /// The rate limiter on the real clock: many eager callers for a while, then the achieved rate.
    struct Rate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Drive the rate gate with eager callers on the real clock; print achieved rate and busiest second.")

        @Option(help: "Requests per second.")
        var rate: Double = 20

        @Option(help: "Burst above the rate.")
        var burst = 5

        @Option(help: "How long to run, in seconds.")
        var seconds = 60

        @Option(help: "Concurrent callers.")
        var callers = 32

        func run() async throws {
            let gate = RateGate(rate: rate, burst: burst, clock: ContinuousClock())
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(seconds)
            let instants = try await withThrowingTaskGroup(of: [ContinuousClock.Instant].self) { group in
                for _ in 0..<callers {
                    group.addTask {
                        var sent: [ContinuousClock.Instant] = []
                        while clock.now < deadline {
                            try await gate.acquire()
                            let at = clock.now
                            if at < deadline { sent.append(at) }
                        }
                        return sent
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }.sorted()
            let measured = RateMeasurement(sendInstants: instants)
            let achieved = measured.rate(over: .seconds(seconds))
            print(
                String(
                    format: "rate gate: %d sends in %d s = %.2f req/s (target %.0f, %+.2f%%); busiest 1-s window %d"
                        + " (rate + burst = %d)", measured.count, seconds, achieved, rate,
                    (achieved - rate) / rate * 100, measured.maxInWindow, Int(rate) + burst))
        }
    }
}

/// A shared position in a list, taken one index at a time.
final class Cursor: Sendable {
    private let position = Atomic<Int>(0)

    /// The next index (starting at 0).
    func take() -> Int { position.wrappingAdd(1, ordering: .relaxed).oldValue }
}
