import ArgumentParser
import FilmCacheKit
import Foundation

/// Where a warm fetches from (`--source`), and how TMDb is asked: token file, endpoint, pace and
/// freshness. Each flag overrides the job file's value; the token itself is never a flag.
struct TMDbOptions: ParsableArguments {
    @Option(name: .customLong("source"), help: Setting.sources.argumentHelp(valueName: "omdb|tmdb"))
    var sources: [String] = []

    @Option(help: Setting.tmdbTokenFile.argumentHelp(valueName: "file"))
    var tmdbTokenFile: String?

    @Option(help: Setting.tmdbBaseURL.argumentHelp(valueName: "url"))
    var tmdbBaseURL: String?

    @Option(help: Setting.tmdbRate.argumentHelp)
    var tmdbRate: Double?

    @Option(help: Setting.tmdbMaxInFlight.argumentHelp)
    var tmdbMaxInFlight: Int?

    @Option(help: Setting.tmdbTTLDays.argumentHelp(valueName: "days"))
    var tmdbTTLDays: Double?

    @Option(help: Setting.tmdbFindTTLDays.argumentHelp(valueName: "days"))
    var tmdbFindTTLDays: Double?

    /// The flags given, by setting.
    var flags: SettingFlags {
        var flags = SettingFlags()
        flags.add(.sources, sources.isEmpty ? nil : sources.map { $0.lowercased() })
        flags.add(.tmdbTokenFile, tmdbTokenFile)
        flags.add(.tmdbBaseURL, tmdbBaseURL)
        flags.add(.tmdbRate, tmdbRate)
        flags.add(.tmdbMaxInFlight, tmdbMaxInFlight)
        flags.add(.tmdbTTLDays, tmdbTTLDays)
        flags.add(.tmdbFindTTLDays, tmdbFindTTLDays)
        return flags
    }

    func validate() throws {
        for source in sources where !JobKey.sourceNames.contains(source.lowercased()) {
            throw ValidationError("--source \(source): not one of \(JobKey.sourceNames.joined(separator: ", "))")
        }
        try flags.check()
    }

    /// The sources to fetch from: the flags', else the job's, else OMDb alone.
    func sources(job: JobFile?) -> Set<String> {
        Set((job?.settings ?? SettingValues()).overlaid(by: flags.values).value(.sources))
    }

    /// TMDb's part of a warm as the job file and these flags set it; exit 78 without a token or
    /// with an endpoint that cannot work.
    func configuration(job: JobFile?) throws -> TMDbWarmConfiguration {
        let settings = (job?.settings ?? SettingValues()).overlaid(by: flags.values)
        var configuration = TMDbWarmConfiguration(endpoint: try endpoint(settings))
        configuration.apply(settings)
        return configuration
    }

    /// TMDb's endpoint: the token from `--tmdb-token-file`, else the job's `tmdb_token_file`, else
    /// `TMDB_API_TOKEN`; exit 78 when there is none or the base URL is not http(s).
    func endpoint(_ settings: SettingValues) throws -> TMDbEndpoint {
        do {
            let token = try TMDbToken.load(
                environment: ProcessInfo.processInfo.environment, file: settings[.tmdbTokenFile])
            return try TMDbEndpoint(baseURL: settings.value(.tmdbBaseURL), token: token)
        } catch {
            throw fail(error.description, status: ExitStatus.configuration)
        }
    }
}
