import ArgumentParser
import FilmCacheKit
import Foundation

/// How TMDb is asked, for the commands that ask it: the token's file, the API's base, the rate and
/// the calls at once. Each flag overrides the job file's value. The token itself comes from
/// `TMDB_API_TOKEN` or a file, never from a flag's value (process arguments are public).
struct TMDbOptions: ParsableArguments {
    @Option(help: Setting.tmdbTokenFile.argumentHelp(valueName: "file"))
    var tmdbTokenFile: String?

    @Option(help: Setting.tmdbBaseURL.argumentHelp(valueName: "url"))
    var tmdbBaseURL: String?

    @Option(help: Setting.tmdbRate.argumentHelp)
    var tmdbRate: Double?

    @Option(help: Setting.tmdbMaxInFlight.argumentHelp)
    var tmdbMaxInFlight: Int?

    /// The TMDb flags given, by setting.
    var flags: SettingFlags {
        var flags = SettingFlags()
        flags.add(.tmdbTokenFile, tmdbTokenFile)
        flags.add(.tmdbBaseURL, tmdbBaseURL)
        flags.add(.tmdbRate, tmdbRate)
        flags.add(.tmdbMaxInFlight, tmdbMaxInFlight)
        return flags
    }

    func validate() throws {
        try flags.check()
    }

    /// The TMDb settings: the job file's, these flags over them.
    func settings(job: JobFile?) -> SettingValues {
        (job?.settings ?? SettingValues()).overlaid(by: flags.values)
    }

    /// Where TMDb is asked and with which token: the token from the file the flags or the job
    /// name, else from `TMDB_API_TOKEN`. With `required` false, `nil` when neither names one;
    /// otherwise exit 78 then, as for a file that cannot be read or a base URL that cannot work.
    func endpoint(
        job: JobFile?, jobPath: String?, required: Bool,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> TMDbEndpoint? {
        let settings = settings(job: job)
        let file = settings[.tmdbTokenFile]
        let variable = "TMDB_API_TOKEN"
        if file == nil, !required,
            (environment[variable] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        {
            return nil
        }
        do throws(TMDbConfigurationError) {
            let token = try TMDbToken.load(environment: environment, variable: variable, file: file)
            return try TMDbEndpoint(baseURL: settings.value(.tmdbBaseURL), token: token)
        } catch .badBaseURL(let url) {
            let source = tmdbBaseURL != nil ? "--tmdb-base-url" : "tmdb_base_url in \(jobPath ?? "the job file")"
            throw fail("\(source) \(url): not an http or https URL", status: ExitStatus.configuration)
        } catch {
            throw fail(error.description, status: ExitStatus.configuration)
        }
    }
}
