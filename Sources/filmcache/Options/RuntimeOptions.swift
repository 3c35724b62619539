import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

/// Flags for how a warm runs: its time limit and its progress reports.
///
/// Every flag is optional so that a job file's value stands unless the flag is given.
struct RuntimeOptions: ParsableArguments {
    /// The run's time limit.
    @Option(help: Setting.maxRuntime.argumentHelp(valueName: "duration"))
    var maxRuntime: DurationArgument?

    /// How long claimed IDs stay this run's on a shared cache.
    @Option(help: Setting.claimLease.argumentHelp(valueName: "duration"))
    var claimLease: DurationArgument?

    /// Time between progress log lines off a terminal.
    @Option(help: Setting.progressInterval.argumentHelp(valueName: "duration"))
    var progressInterval: DurationArgument?

    /// Turns progress reports off.
    @Flag(help: "Show no progress line and log no progress lines.")
    var noProgress = false

    /// How often a terminal's progress line is redrawn.
    static let terminalInterval = Duration.milliseconds(250)

    /// Rejects a time limit out of its range and progress intervals too short to read.
    func validate() throws {
        try flags.check()
    }

    /// The time limit and progress flags given, by setting.
    var flags: SettingFlags {
        var flags = SettingFlags()
        flags.add(.maxRuntime, maxRuntime?.duration)
        flags.add(.claimLease, claimLease?.duration)
        flags.add(.progressInterval, progressInterval?.duration)
        return flags
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
                    interval: (jobFile?.settings ?? SettingValues()).overlaid(by: flags.values).value(
                        .progressInterval),
                    destination: .log(logger))
        }
        defer { TerminalStatusLine.standardError.clear() }
        return try await job.run()
    }
}
