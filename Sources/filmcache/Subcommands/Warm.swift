import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

extension FilmCacheCommand {
    struct Warm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch what the worklists name and the cache lacks or holds stale.",
            discussion: """
                Reads imdbIDs (one ID or IMDb title URL a line, # comments), skips films
                fetched within --ttl-days, fetches the rest from OMDb under the daily budget,
                and upserts them. Exit status: 0 done; 75 stopped early (budget or limit),
                the rest resumes next run; 65 bad worklist; 69 OMDb unreachable;
                74 database error; 78 configuration (missing or rejected key).

                Examples:
                  OMDB_API_KEY=… filmcache warm --db films.sqlite Data/watchlist.txt
                  filmcache warm --api-key-file /etc/filmcache/key --db films.sqlite a.txt b.txt
                  OMDB_API_KEY=demo filmcache warm --base-url http://127.0.0.1:8089/ --db t.sqlite list.txt
                """
        )

        @OptionGroup var common: CommonOptions

        @OptionGroup(title: "Freshness and budget") var planning: PlanOptions

        @Option(help: "OMDb endpoint; point it at a stand-in for offline runs.")
        var baseURL = "https://www.omdbapi.com/"

        @Option(help: "Read the API key from this file instead of OMDB_API_KEY.")
        var apiKeyFile: String?

        @Option(help: "Concurrent OMDb requests (also the connection cache size).")
        var maxInFlight = 8

        @Option(help: "Requests per second; 0 for no limit.")
        var rate: Double = 5

        @Option(help: "Requests allowed at once above the rate after an idle spell.")
        var burst = 5

        @Option(help: "Seconds one request may take in all (connecting included).")
        var timeout: Double = 30

        @Option(help: "Seconds to wait for a connection.")
        var connectTimeout: Double = 10

        @Option(help: "Tries per ID in one run for transient failures, the first included.")
        var maxAttempts = 4

        @Option(help: "Seconds before the first retry; doubles per attempt, with full jitter.")
        var retryBase: Double = 1

        @Option(help: "Largest wait between retries, in seconds.")
        var retryCap: Double = 30

        @Option(help: "Transient failures in a row that pause new work for a cool-down.")
        var breakerPauseAfter = 8

        @Option(help: "Transient failures in a row that end the run (exit 75).")
        var breakerStopAfter = 30

        @Option(help: "Seconds new work waits after the breaker pauses it.")
        var breakerCoolDown: Double = 30

        @Option(help: "Write a Prometheus textfile here at the end of the run (replaced atomically).")
        var metricsFile: String?

        @Argument(help: "Worklist files.")
        var worklists: [String] = []

        func validate() throws {
            guard maxInFlight >= 1 else { throw ValidationError("--max-in-flight must be at least 1") }
            guard burst >= 1 else { throw ValidationError("--burst must be at least 1") }
            guard timeout > 0, connectTimeout > 0 else { throw ValidationError("timeouts must be positive") }
            guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
            guard retryBase >= 0, retryCap >= retryBase else {
                throw ValidationError("--retry-base must be at least 0 and no more than --retry-cap")
            }
            guard breakerPauseAfter >= 1, breakerStopAfter >= breakerPauseAfter, breakerCoolDown >= 0 else {
                throw ValidationError("--breaker-stop-after must be at least --breaker-pause-after (at least 1)")
            }
            guard !worklists.isEmpty else { throw ValidationError("name at least one worklist file") }
            try validateMetricsFile()
        }

        func run() async throws {
            let logger = common.makeLogger()
            let started = ContinuousClock.now
            let now = try ReferenceTime.clock()
            let key: APIKey
            do {
                key = try APIKey.load(environment: ProcessInfo.processInfo.environment, file: apiKeyFile)
            } catch {
                throw fail(error.description, status: ExitStatus.configuration)
            }
            var configuration = WarmConfiguration(
                databasePath: common.databasePath, worklists: worklists, apiKey: key)
            configuration.baseURL = baseURL
            planning.apply(to: &configuration.planSettings)
            configuration.maxInFlight = maxInFlight
            configuration.rate = rate
            configuration.burst = burst
            configuration.backoff = Backoff(
                base: .seconds(retryBase), cap: .seconds(retryCap), maxAttempts: maxAttempts,
                maxWait: .seconds(max(120, retryCap)))
            configuration.circuitBreaker = CircuitBreaker(
                pauseAfter: breakerPauseAfter, stopAfter: breakerStopAfter, coolDown: .seconds(breakerCoolDown))

            let store: CacheStore
            do {
                store = try CacheStore(path: common.databasePath, logger: logger)
            } catch {
                throw fail(error.description, status: ExitStatus.ioError)
            }
            var options = CurlMultiTransport.Options()
            options.maxInFlight = maxInFlight
            options.totalTimeout = .seconds(timeout)
            options.connectTimeout = .seconds(connectTimeout)
            let transport = CurlMultiTransport(options: options)
            defer { transport.shutdown() }

            let summary: WarmSummary
            do {
                summary = try await WarmJob(
                    configuration: configuration, store: store, transport: transport, now: now, logger: logger
                ).run()
            } catch {
                writeMetrics(nil, status: Self.exitStatus(for: error), store, configuration, since: started, now: now)
                throw fail(error.description, status: Self.exitStatus(for: error))
            }
            print(SummaryReport.text(summary, keyFingerprint: key.fingerprint, database: common.databasePath))
            let status = summary.stopReason == nil ? 0 : ExitStatus.tryAgainLater
            writeMetrics(summary, status: status, store, configuration, since: started, now: now)
            if summary.stopReason != nil { throw ExitCode(ExitStatus.tryAgainLater) }
        }

        static func exitStatus(for error: WarmError) -> Int32 {
            switch error {
            case .invalidKey: ExitStatus.configuration
            case .worklist: ExitStatus.dataError
            case .store: ExitStatus.ioError
            case .unreachable: ExitStatus.unavailable
            }
        }
    }
}
