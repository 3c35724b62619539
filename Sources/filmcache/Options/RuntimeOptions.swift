import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

/// Flags for how a warm runs: its time limit and its progress reports.
///
/// Every flag is optional so that a job file's value stands unless the flag is given.
struct RuntimeOptions: ParsableArguments {
    /// The run's time limit.
    @Option(
        help: ArgumentHelp(
            "Stop cleanly after this long (seconds, or 90s, 45m, 2h, 1h30m) and exit 75.",
            discussion: "No new request is sent; requests in flight finish (within --timeout) and are stored.",
            valueName: "duration"))
    var maxRuntime: DurationArgument?

    /// How long claimed IDs stay this run's on a shared cache.
    @Option(
        help: ArgumentHelp(
            "On a PostgreSQL cache: how long IDs this warm claims stay its own without a renewal. Default 10m.",
            discussion:
                "A killed warm's IDs go to the other warms at once (its session with the server ends); the lease"
                + " holds them only for a host the server cannot reach.", valueName: "duration"))
    var claimLease: DurationArgument?

    /// Time between progress log lines off a terminal.
    @Option(
        help: ArgumentHelp(
            "Time between progress log lines when standard error is not a terminal (0.1 s to 1 day). Default 30s.",
            valueName: "duration"))
    var progressInterval: DurationArgument?

    /// Turns progress reports off.
    @Flag(help: "Show no progress line and log no progress lines.")
    var noProgress = false

    /// How often a terminal's progress line is redrawn.
    static let terminalInterval = Duration.milliseconds(250)

    /// Rejects a time limit out of its range and progress intervals too short to read.
    func validate() throws {
        try SettingFlags.check([
            .maxRuntime: maxRuntime?.duration.inSeconds, .claimLease: claimLease?.duration.inSeconds,
            .progressInterval: progressInterval?.duration.inSeconds,
        ])
    }

    /// Runs `job` with `stop` as its stop token and progress on standard error, clearing the line at the end.
    ///
    /// On a terminal the live line is redrawn 4 times a second; elsewhere a `progress` log line
    /// at notice level is written every `--progress-interval`.
    func run(_ job: WarmJob, stop: WarmStop, jobFile: JobFile?, logger: Logger) async throws(WarmError)
        -> WarmSummary
    {
        var job = job
        job.stop = stop
        if !noProgress {
            job.progress =
                TerminalStatusLine.standardErrorIsTerminal
                ? ProgressDisplay(
                    interval: Self.terminalInterval, destination: .terminal(TerminalStatusLine.standardError))
                : ProgressDisplay(
                    interval: progressInterval?.duration ?? jobFile?.progressInterval ?? .seconds(30),
                    destination: .log(logger))
        }
        defer { TerminalStatusLine.standardError.clear() }
        return try await job.run()
    }
}
