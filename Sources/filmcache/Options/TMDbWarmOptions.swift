import ArgumentParser
import FilmCacheKit
import Foundation

/// What a warm adds to how TMDb is asked: which sources it fetches from (`--source`), and how long
/// TMDb's entries and `/find` answers stay fresh. Each flag overrides the job file's value.
struct TMDbWarmOptions: ParsableArguments {
    @Option(name: .customLong("source"), help: Setting.sources.argumentHelp(valueName: "omdb|tmdb"))
    var sources: [String] = []

    @Option(help: Setting.tmdbTTLDays.argumentHelp(valueName: "days"))
    var tmdbTTLDays: Double?

    @Option(help: Setting.tmdbFindTTLDays.argumentHelp(valueName: "days"))
    var tmdbFindTTLDays: Double?

    /// The flags given, by setting.
    var flags: SettingFlags {
        var flags = SettingFlags()
        flags.add(.sources, sources.isEmpty ? nil : sources.map { $0.lowercased() })
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

    /// TMDb's part of a warm as the job file and the flags set it (`connection`'s and these);
    /// exit 78 without a token or with an endpoint that cannot work.
    func configuration(job: JobFile?, jobPath: String?, connection: TMDbOptions) throws -> TMDbWarmConfiguration {
        guard let endpoint = try connection.endpoint(job: job, jobPath: jobPath, required: true) else {
            throw fail("no TMDb token", status: ExitStatus.configuration)
        }
        let settings = connection.settings(job: job).overlaid(by: flags.values)
        var configuration = TMDbWarmConfiguration(endpoint: endpoint)
        configuration.apply(settings)
        return configuration
    }
}
