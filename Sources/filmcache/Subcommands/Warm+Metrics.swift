import ArgumentParser
import FilmCacheKit
import Foundation

extension FilmCacheCommand.Warm {
    /// Writes `--metrics-file`, if asked for, for a run that ends with `status`.
    ///
    /// A metrics file that cannot be written is reported on standard error and leaves the
    /// exit status alone: the run's work is committed, and a stale file shows on the dashboard
    /// through `filmcache_last_run_timestamp_seconds`.
    func writeMetrics(
        to metricsFile: String?, _ summary: WarmSummary?, status: Int32, _ store: CacheStore,
        _ configuration: WarmConfiguration,
        since started: ContinuousClock.Instant, now: @Sendable () -> Date
    ) {
        guard let metricsFile else { return }
        do {
            let metrics = try WarmMetrics.read(
                from: store, summary: summary, exitStatus: status, duration: ContinuousClock.now - started,
                keyFingerprint: configuration.apiKey.fingerprint, settings: configuration.planSettings, now: now())
            try MetricsFile.write(metrics, to: metricsFile)
        } catch {
            FileHandle.standardError.write(Data("filmcache: \(error)\n".utf8))
        }
    }

    /// Refuses a metrics file (flag or job) whose directory does not exist, before any quota is spent.
    func validateMetricsFile(_ metricsFile: String?) throws {
        guard let metricsFile else { return }
        let directory = URL(fileURLWithPath: metricsFile).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw fail("metrics file \(metricsFile): no directory \(directory)", status: ExitStatus.configuration)
        }
    }
}
