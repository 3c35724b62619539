import FilmCacheKit

/// The warm's Prometheus textfile (`--metrics-file`), for node_exporter's textfile collector:
/// ``MetricsFile``'s families rendered by swift-prometheus and written atomically.
///
/// Counters (`*_total`) continue from the file being replaced, so they only grow from run to run;
/// removing the file starts them again from zero, which Prometheus reads as a reset.
public enum MetricsTextfile {
    /// The file's text for `metrics`, continuing the counters found in `previous` (the old file's text).
    public static func render(_ metrics: WarmMetrics, previous: String? = nil) -> String {
        PrometheusExposition.text(
            MetricsFile.families(metrics, previous: MetricsFile.previousTotals(previous ?? "")))
    }

    /// Writes the file for `metrics` at `path`, atomically, continuing the counters of the file it replaces.
    public static func write(_ metrics: WarmMetrics, to path: String) throws(MetricsFile.WriteError) {
        let previous = try? String(contentsOfFile: path, encoding: .utf8)
        try MetricsFile.writeAtomically(render(metrics, previous: previous), to: path)
    }
}
