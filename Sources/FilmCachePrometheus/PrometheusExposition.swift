import FilmCacheKit
import Prometheus

/// Metric families in the Prometheus text exposition format (0.0.4), rendered by swift-prometheus
/// as `filmcache serve`'s `/metrics` is.
///
/// Each family is emitted by a registry of its own, so the families keep the order they are given
/// in; within a family the series are sorted, so the same families always give the same text.
/// Whole numbers are written without a fraction (`75`, not `75.0`), as the file always had them: a
/// script or an alert may match on them. A family without samples has nothing to emit and is left out.
package enum PrometheusExposition {
    /// The text of `families`, one after the other.
    public static func text(_ families: [MetricFamily]) -> String {
        var text = ""
        for family in families where !family.samples.isEmpty {
            text += self.text(family)
        }
        return text
    }

    /// One family's `# HELP`, `# TYPE` and sample lines.
    static func text(_ family: MetricFamily) -> String {
        let registry = PrometheusCollectorRegistry()
        // The whole name as the metric name: no namespace, subsystem or unit is added to it.
        let descriptor = MetricNameDescriptor(metricName: family.name, unitName: "", helpText: family.help)
        for sample in family.samples {
            let labels = sample.labels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            switch family.kind {
            case .gauge:
                registry.makeGauge(descriptor: descriptor, labels: labels).set(sample.value)
            case .counter:
                let counter = registry.makeCounter(descriptor: descriptor, labels: labels)
                if let whole = Int64(exactly: sample.value) {
                    counter.increment(by: whole)
                } else {
                    counter.increment(by: sample.value)
                }
            }
        }
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        let comments = lines.filter { $0.hasPrefix("#") }
        let samples = lines.filter { !$0.hasPrefix("#") }.map(wholeNumbersWithoutFraction).sorted()
        return (comments.map(String.init) + samples).map { $0 + "\n" }.joined()
    }

    /// A sample line whose value is a whole number written `N.0`, with the `.0` left out.
    static func wholeNumbersWithoutFraction(_ line: Substring) -> String {
        guard line.hasSuffix(".0"), let space = line.lastIndex(of: " "),
            let value = Double(line[line.index(after: space)...]), abs(value) < 1e15
        else { return String(line) }
        return String(line.dropLast(2))
    }
}
