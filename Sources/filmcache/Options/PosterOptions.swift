import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

/// The poster flags `posters` and `warm --posters` share; each overrides the job file's `poster_*` key.
struct PosterOptions: ParsableArguments {
    @Option(help: "Poster requests per second (not metered by OMDb's quota); 0 for no limit. Default 10.")
    var posterRate: Double?

    @Option(help: "Poster transfers at once. Default 8.")
    var posterMaxInFlight: Int?

    @Option(help: "The largest poster accepted, in bytes. Default 5242880.")
    var posterMaxBytes: Int?

    @Option(help: "Days after which a stored poster is revalidated (a 304 costs no bytes). Default 30.")
    var posterRevalidateDays: Double?

    @Option(help: "Days before a poster that is gone (404) is asked for again. Default 30.")
    var posterGoneRetryDays: Double?

    @Option(
        name: .customLong("poster-allow-host"),
        help: ArgumentHelp(
            "A poster host (as its URLs spell it) that may be on a loopback, private or link-local address,"
                + " such as a LAN image server; repeat for more. Replaces the job file's poster_allow_hosts."
                + " Every other poster host must resolve to public addresses, redirects included.",
            valueName: "host"))
    var posterAllowHosts: [String] = []

    var overrides: PosterOverrides {
        var overrides = PosterOverrides()
        overrides.rate = posterRate
        overrides.maxInFlight = posterMaxInFlight
        overrides.maxBytes = posterMaxBytes
        overrides.revalidateDays = posterRevalidateDays
        overrides.goneRetryDays = posterGoneRetryDays
        if !posterAllowHosts.isEmpty {
            overrides.allowHosts = posterAllowHosts.compactMap { try? DestinationPolicy.allowedHost($0).get() }
        }
        return overrides
    }

    func validate() throws {
        try SettingFlags.check(overrides.values)
        for host in posterAllowHosts {
            if case .failure(let error) = DestinationPolicy.allowedHost(host) {
                throw ValidationError("--poster-allow-host: \(error.description)")
            }
        }
    }

    /// The settings: defaults, then the job file's, then the flags'.
    func settings(job: JobFile?) -> PosterSettings {
        var settings = PosterSettings()
        job?.posters.apply(to: &settings)
        overrides.apply(to: &settings)
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
        stop: WarmStop, logger: Logger, now: @escaping @Sendable () -> Date
    ) async throws(PosterJobError) -> PosterSummary {
        var options = CurlMultiTransport.Options()
        options.maxInFlight = settings.maxInFlight
        options.maxBodyBytes = settings.maxBytes
        options.totalTimeout = .seconds(60)
        let transport = CurlMultiTransport(options: options)
        defer { transport.shutdown() }
        let job = PosterJob(
            cache: cache, store: store, transport: transport, settings: settings,
            time: TimeSource(clock: ContinuousClock(), wall: WallClock(now: now)), logger: logger)
        var summary = try await job.run(fetchedSince: fetchedSince, stop: stop)
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
        case .cache(let error): CommonOptions.exitStatus(for: error)
        case .posterStore: ExitStatus.ioError
        }
    }
}
