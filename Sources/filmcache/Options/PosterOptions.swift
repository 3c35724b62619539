import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

/// The poster flags `posters` and `warm --posters` share; each overrides the job file's `poster_*` key.
struct PosterOptions: ParsableArguments {
    @Option(help: Setting.posterRate.argumentHelp)
    var posterRate: Double?

    @Option(help: Setting.posterMaxInFlight.argumentHelp)
    var posterMaxInFlight: Int?

    @Option(help: Setting.posterMaxBytes.argumentHelp)
    var posterMaxBytes: Int?

    @Option(help: Setting.posterRevalidateDays.argumentHelp)
    var posterRevalidateDays: Double?

    @Option(help: Setting.posterGoneRetryDays.argumentHelp)
    var posterGoneRetryDays: Double?

    @Option(name: .customLong("poster-allow-host"), help: Setting.posterAllowHosts.argumentHelp(valueName: "host"))
    var posterAllowHosts: [String] = []

    /// The poster flags given, by setting; the hosts normalized, and only when some are given.
    var flags: SettingFlags {
        var flags = SettingFlags()
        flags.add(.posterRate, posterRate)
        flags.add(.posterMaxInFlight, posterMaxInFlight)
        flags.add(.posterMaxBytes, posterMaxBytes)
        flags.add(.posterRevalidateDays, posterRevalidateDays)
        flags.add(.posterGoneRetryDays, posterGoneRetryDays)
        if !posterAllowHosts.isEmpty {
            flags.add(.posterAllowHosts, posterAllowHosts.compactMap { try? DestinationPolicy.allowedHost($0).get() })
        }
        return flags
    }

    func validate() throws {
        try flags.check()
        for host in posterAllowHosts {
            if case .failure(let error) = DestinationPolicy.allowedHost(host) {
                throw ValidationError("--poster-allow-host: \(error.description)")
            }
        }
    }

    /// The settings: defaults, then the job file's, then the flags'.
    func settings(job: JobFile?) -> PosterSettings {
        var settings = PosterSettings()
        settings.apply((job?.settings ?? SettingValues()).overlaid(by: flags.values))
        return settings
    }

    /// Opens the poster store at `directory`; exit 73 (cannot create) when it cannot be made or written.
    static func openStore(_ directory: String) throws -> PosterStore {
        do {
            return try PosterStore(root: directory)
        } catch {
            throw fail(error.description, status: ExitStatus.cannotCreate)
        }
    }

    /// Runs a poster job over `cache` into `store`, its own transport and pace; prints the summary.
    static func run(
        cache: any PosterIndex, store: PosterStore, settings: PosterSettings, fetchedSince: Date?, prune: Bool,
        stop: WarmStop, logger: Logger, time: TimeSource
    ) async throws(PosterJobError) -> PosterSummary {
        try await run(
            cache: cache, store: store, settings: settings, prune: prune, logger: logger, time: time
        ) { (job) throws(PosterJobError) in
            try await job.run(fetchedSince: fetchedSince, stop: stop)
        }
    }

    /// Runs `fetch` with a poster job over `cache` into `store`, on its own transport and pace (the
    /// image hosts' transport, which carries no credential), then prunes when asked; prints the summary.
    static func run(
        cache: any PosterIndex, store: PosterStore, settings: PosterSettings, prune: Bool, logger: Logger,
        time: TimeSource, fetch: (PosterJob) async throws(PosterJobError) -> PosterSummary
    ) async throws(PosterJobError) -> PosterSummary {
        var options = CurlMultiTransport.Options()
        options.maxInFlight = settings.maxInFlight
        options.maxBodyBytes = settings.maxBytes
        options.totalTimeout = .seconds(60)
        let transport = CurlMultiTransport(options: options)
        defer { transport.shutdown() }
        let job = PosterJob(
            cache: cache, store: store, transport: transport, settings: settings,
            time: time, logger: logger)
        var summary = try await fetch(job)
        if prune && !summary.stopped { summary.pruned = try await job.prune() }
        print(PosterReport.text(summary, store: store.root))
        return summary
    }

    /// The exit status of a poster run that ended with `summary`: 75 when stopped early or when
    /// nothing could be fetched and something failed (an image host down), else 0.
    static func exitStatus(for summary: PosterSummary) -> Int32 {
        if summary.stopped { return ExitStatus.tryAgainLater }
        if summary.succeeded == 0 && summary.failed > 0 { return ExitStatus.tryAgainLater }
        return 0
    }

    /// The exit status of a poster run that ended with an error: 75 when the cache database is
    /// unavailable (a server that went away: try again later), else 74 (it or the store could not be written).
    static func exitStatus(for error: PosterJobError) -> Int32 {
        switch error {
        case .cache(let error): ExitStatus.of(error)
        case .posterStore: ExitStatus.ioError
        }
    }
}
