import ArgumentParser
import FilmCacheKit
import Foundation

/// How OMDb is asked, for the commands that ask it (`warm`, `serve`): endpoint, key, concurrency,
/// rate, timeouts, retries and the circuit breaker. Each flag overrides the job file's value.
struct FetchOptions: ParsableArguments {
    @Option(help: "OMDb endpoint; point it at a stand-in for offline runs. Default https://www.omdbapi.com/.")
    var baseURL: String?

    @Option(help: "Read the API key from this file instead of OMDB_API_KEY.")
    var apiKeyFile: String?

    @Option(help: "Concurrent OMDb requests (also the connection cache size). Default 8.")
    var maxInFlight: Int?

    @Option(help: "Requests per second; 0 for no limit. Default 5.")
    var rate: Double?

    @Option(help: "Requests allowed at once above the rate after an idle spell. Default 5.")
    var burst: Int?

    @Option(help: "Seconds one request may take in all (connecting included). Default 30.")
    var timeout: Double?

    @Option(help: "Seconds to wait for a connection. Default 10.")
    var connectTimeout: Double?

    @Option(help: "Tries per ID in one run for transient failures, the first included. Default 4.")
    var maxAttempts: Int?

    @Option(help: "Seconds before the first retry; doubles per attempt, with full jitter. Default 1.")
    var retryBase: Double?

    @Option(help: "Largest wait between retries, in seconds. Default 30.")
    var retryCap: Double?

    @Option(help: "Transient failures in a row that pause new work for a cool-down. Default 8.")
    var breakerPauseAfter: Int?

    @Option(help: "Transient failures in a row that end the run (exit 75). Default 30.")
    var breakerStopAfter: Int?

    @Option(help: "Seconds new work waits after the breaker pauses it. Default 30.")
    var breakerCoolDown: Double?

    func validate() throws {
        try SettingFlags.check([
            .maxInFlight: maxInFlight.map(Double.init), .rate: rate, .burst: burst.map(Double.init),
            .timeout: timeout, .connectTimeout: connectTimeout, .maxAttempts: maxAttempts.map(Double.init),
            .retryBase: retryBase, .retryCap: retryCap, .breakerPauseAfter: breakerPauseAfter.map(Double.init),
            .breakerStopAfter: breakerStopAfter.map(Double.init), .breakerCoolDown: breakerCoolDown,
        ])
    }

    /// The fetch flags given, as overrides of the job's values and the defaults.
    var fetchOverrides: FetchOverrides {
        var overrides = FetchOverrides()
        overrides.baseURL = baseURL
        overrides.rate = rate
        overrides.burst = burst
        overrides.maxInFlight = maxInFlight
        overrides.timeout = timeout.map { .seconds($0) }
        overrides.connectTimeout = connectTimeout.map { .seconds($0) }
        overrides.maxAttempts = maxAttempts
        overrides.retryBase = retryBase.map { .seconds($0) }
        overrides.retryCap = retryCap.map { .seconds($0) }
        overrides.breakerPauseAfter = breakerPauseAfter
        overrides.breakerStopAfter = breakerStopAfter
        overrides.breakerCoolDown = breakerCoolDown.map { .seconds($0) }
        return overrides
    }

    /// The configuration of a command on `database` reading `worklists`: the key (exit 78 when
    /// missing), the job file's fetch settings with these flags over them, and the transport's
    /// options; exit 78 for a base URL, retry or breaker setting that cannot work.
    func configuration(database: String, worklists: [String], job: JobFile?, jobPath: String?) throws -> (
        WarmConfiguration, CurlMultiTransport.Options
    ) {
        let key: APIKey
        do {
            key = try JobOptions.apiKey(file: apiKeyFile, job: job)
        } catch {
            throw fail(error.description, status: ExitStatus.configuration)
        }
        var configuration = WarmConfiguration(databasePath: database, worklists: worklists, apiKey: key)
        var options = CurlMultiTransport.Options()
        for overrides in [job?.fetch, fetchOverrides].compactMap({ $0 }) {
            overrides.apply(to: &configuration)
            overrides.apply(to: &options)
        }
        if let problem = BaseURL.problem(configuration.baseURL) {
            let source = baseURL != nil ? "--base-url" : "base_url in \(jobPath ?? "the job file")"
            throw fail("\(source): \(problem)", status: ExitStatus.configuration)
        }
        if configuration.backoff.base > configuration.backoff.cap {
            throw fail(
                "the retry base is more than the retry cap (job file and flags together)",
                status: ExitStatus.configuration)
        }
        if let stop = fetchOverrides.breakerStopAfter ?? job?.fetch.breakerStopAfter,
            stop < configuration.circuitBreaker.pauseAfter
        {
            throw fail(
                "breaker stop-after is less than pause-after (job file and flags together)",
                status: ExitStatus.configuration)
        }
        return (configuration, options)
    }
}
