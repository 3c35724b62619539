import Foundation

/// What the warm's Prometheus textfile (`--metrics-file`) holds, and how it is replaced; the text
/// itself is rendered by swift-prometheus outside this module (FilmCachePrometheus's `MetricsTextfile`).
///
/// The file is replaced atomically at the end of every run, so the collector never reads half
/// of one. Counters (`*_total`) continue from the file being replaced, so they only grow from
/// run to run; removing the file starts them again from zero, which Prometheus reads as a reset.
public enum MetricsFile {
    /// Counter families whose totals carry over from the previous file.
    static let counterNames: Set<String> = Set(["filmcache_calls_total", "filmcache_films_upserted_total"])
        .union(tmdbCounterNames)

    /// Every family the file holds, in the order written. docs/METRICS.md documents each one.
    package static func families(_ m: WarmMetrics, previous: [String: Double]) -> [MetricFamily] {
        func gauge(_ name: String, _ help: String, _ value: Double) -> MetricFamily {
            MetricFamily(name, .gauge, help: help, value: value)
        }
        func total(_ name: String, _ labels: [String: String], adding value: Int) -> MetricFamily.Sample {
            MetricFamily.Sample((previous[MetricFamily.series(name, labels)] ?? 0) + Double(value), labels: labels)
        }
        let s = m.summary
        var families = [
            gauge(
                "filmcache_last_success_timestamp_seconds",
                "When the latest warm that completed (exit 0 or 75) ended, Unix time; 0 if none has.",
                m.lastSuccessAt?.timeIntervalSince1970 ?? 0),
            gauge(
                "filmcache_last_run_timestamp_seconds", "When the latest warm ended, whatever its outcome, Unix time.",
                m.finishedAt.timeIntervalSince1970),
            gauge("filmcache_last_run_duration_seconds", "How long the latest warm took.", m.duration),
            gauge(
                "filmcache_last_run_exit_status",
                "Exit status of the latest warm: 0 done, 75 stopped early (budget, limit, failures), else an error.",
                Double(m.exitStatus)),
            MetricFamily(
                "filmcache_calls_total", .counter, help: "OMDb calls by what they came to, over all runs.",
                samples: CallOutcome.allCases.map {
                    total("filmcache_calls_total", ["outcome": $0.rawValue], adding: s?.callsByOutcome[$0] ?? 0)
                }),
            MetricFamily(
                "filmcache_films_upserted_total", .counter, help: "Films stored in the cache, over all runs.",
                samples: [total("filmcache_films_upserted_total", [:], adding: s?.fetched ?? 0)]),
        ]
        if let s {
            families += [
                MetricFamily(
                    "filmcache_last_run_calls", .gauge, help: "OMDb calls of the latest warm by what they came to.",
                    samples: CallOutcome.allCases.map {
                        MetricFamily.Sample(Double(s.callsByOutcome[$0] ?? 0), labels: ["outcome": $0.rawValue])
                    }),
                gauge("filmcache_last_run_films_upserted", "Films the latest warm stored.", Double(s.fetched)),
                gauge(
                    "filmcache_last_run_deferred", "IDs due but left for a later run when the latest warm ended.",
                    Double(s.deferred)),
                gauge(
                    "filmcache_plan_considered", "Distinct worklist IDs the latest warm planned.", Double(s.considered)),
                gauge(
                    "filmcache_plan_fresh", "IDs cached and within their TTL when the latest warm planned.",
                    Double(s.fresh)),
                gauge(
                    "filmcache_plan_missing",
                    "IDs not cached when the latest warm planned (negative answers due again included).",
                    Double(s.missing)),
                gauge(
                    "filmcache_plan_stale", "IDs cached but past their TTL when the latest warm planned.",
                    Double(s.stale)),
            ]
        }
        families += tmdbFamilies(m, previous: previous)
        if let quota = m.quota { families += QuotaReport.metricFamilies(quota) }
        return families
    }

    /// The counter values in an earlier file, by series; anything unreadable is left out.
    package static func previousTotals(_ text: String) -> [String: Double] {
        var totals: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]),
                value.isFinite, value >= 0
            else { continue }
            let series = String(line[..<space])
            let name = String(series.prefix { $0 != "{" })
            if counterNames.contains(name) { totals[series] = value }
        }
        return totals
    }

    /// Replaces `path` with `text` so that readers see the old file or the new one, never a part.
    ///
    /// The text goes to a hidden temporary file in the same directory (same file system, and a
    /// name the textfile collector ignores), is flushed to disk, and is renamed over `path`
    /// (``TemporaryFile/replace(_:with:mode:sync:)``); the directory is then flushed so the
    /// rename survives a crash.
    package static func writeAtomically(_ text: String, to path: String) throws(WriteError) {
        if let reason = TemporaryFile.replace(path, with: Array(text.utf8), mode: 0o644, sync: true) {
            throw WriteError(path: path, reason: reason)
        }
    }

    /// The metrics file could not be written; the run's own work is committed regardless.
    public struct WriteError: Error, Equatable, CustomStringConvertible {
        /// The file that was to be written.
        public var path: String
        /// What went wrong, with the system's words.
        public var reason: String

        /// The path and the reason, for the message on standard error.
        public var description: String { "cannot write the metrics file \(path): \(reason)" }
    }
}
