import ArgumentParser
import FilmCacheKit
import FilmCachePrometheus
import Foundation

extension FilmCacheCommand.Warm {
    /// Writes `--metrics-file`, if asked for, for a run that ends with `status`.
    ///
    /// A metrics file that cannot be written is reported on standard error and returns `false`:
    /// the run's work is committed, but a run whose monitoring went stale is not a success, so a
    /// run that would have exited 0 exits 74 instead (docs/METRICS.md).
    @discardableResult
    func writeMetrics(
        to metricsFile: String?, _ summary: WarmSummary?, status: Int32, _ store: any QuotaReportStore & TMDbStore,
        _ configuration: WarmConfiguration,
        since started: ContinuousClock.Instant, now: @Sendable () -> Date
    ) async -> Bool {
        guard let metricsFile else { return true }
        do {
            let metrics = try await WarmMetrics.read(
                from: store, summary: summary, exitStatus: status, duration: ContinuousClock.now - started,
                keyFingerprint: configuration.apiKey.fingerprint, settings: configuration.planSettings, now: now(),
                tmdb: store)
            try MetricsTextfile.write(metrics, to: metricsFile)
            return true
        } catch {
            StandardError.write("filmcache: metrics file not written: \(error)")
            return false
        }
    }

    /// Refuses a metrics file (flag or job) whose directory does not exist or cannot be written by
    /// this user, before any quota is spent (exit 78).
    func validateMetricsFile(_ metricsFile: String?) throws {
        guard let metricsFile else { return }
        let directory = URL(fileURLWithPath: metricsFile).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw fail("metrics file \(metricsFile): no directory \(directory)", status: ExitStatus.configuration)
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw fail(
                "metrics file \(metricsFile): directory \(directory) is not writable by this user"
                    + " (see docs/OPERATING.md, \"Metrics\")", status: ExitStatus.configuration)
        }
    }
}
