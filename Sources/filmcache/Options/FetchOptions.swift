import ArgumentParser
import FilmCacheKit
import Foundation

/// How OMDb is asked, for the commands that ask it (`warm`, `serve`): endpoint, key, concurrency,
/// rate, timeouts, retries and the circuit breaker. Each flag overrides the job file's value.
struct FetchOptions: ParsableArguments {
    @Option(help: Setting.baseURL.argumentHelp)
    var baseURL: String?

    @Option(help: Setting.apiKeyFile.argumentHelp)
    var apiKeyFile: String?

    @Option(help: Setting.maxInFlight.argumentHelp)
    var maxInFlight: Int?

    @Option(help: Setting.rate.argumentHelp)
    var rate: Double?

    @Option(help: Setting.burst.argumentHelp)
    var burst: Int?

    @Option(help: Setting.timeout.argumentHelp)
    var timeout: Double?

    @Option(help: Setting.connectTimeout.argumentHelp)
    var connectTimeout: Double?

    @Option(help: Setting.maxAttempts.argumentHelp)
    var maxAttempts: Int?

    @Option(help: Setting.retryBase.argumentHelp)
    var retryBase: Double?

    @Option(help: Setting.retryCap.argumentHelp)
    var retryCap: Double?

    @Option(help: Setting.breakerPauseAfter.argumentHelp)
    var breakerPauseAfter: Int?

    @Option(help: Setting.breakerStopAfter.argumentHelp)
    var breakerStopAfter: Int?

    @Option(help: Setting.breakerCoolDown.argumentHelp)
    var breakerCoolDown: Double?

    /// The fetch flags given, by setting.
    var flags: SettingFlags {
        var flags = SettingFlags()
        flags.add(.baseURL, baseURL)
        flags.add(.apiKeyFile, apiKeyFile)
        flags.add(.maxInFlight, maxInFlight)
        flags.add(.rate, rate)
        flags.add(.burst, burst)
        flags.add(.timeout, seconds: timeout)
        flags.add(.connectTimeout, seconds: connectTimeout)
        flags.add(.maxAttempts, maxAttempts)
        flags.add(.retryBase, seconds: retryBase)
        flags.add(.retryCap, seconds: retryCap)
        flags.add(.breakerPauseAfter, breakerPauseAfter)
        flags.add(.breakerStopAfter, breakerStopAfter)
        flags.add(.breakerCoolDown, seconds: breakerCoolDown)
        return flags
    }

    func validate() throws {
        try flags.check()
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
        let settings = (job?.settings ?? SettingValues()).overlaid(by: flags.values)
        configuration.apply(settings)
        options.apply(settings)
        if let problem = BaseURL.problem(configuration.baseURL) {
            let source = baseURL != nil ? "--base-url" : "base_url in \(jobPath ?? "the job file")"
            throw fail("\(source): \(problem)", status: ExitStatus.configuration)
        }
        if let order = settings.orderProblems().first {
            throw fail("\(order.together) (job file and flags together)", status: ExitStatus.configuration)
        }
        return (configuration, options)
    }
}
