import Foundation

/// One metric in the Prometheus text exposition format (0.0.4): its `# HELP`, its `# TYPE` and its samples.
///
/// `filmcache quota --prometheus` and the warm's `--metrics-file` both render through this, so
/// names, escaping and number forms are written in one place. docs/METRICS.md lists every metric.
public struct MetricFamily: Sendable, Equatable {
    /// The metric types filmcache writes.
    public enum Kind: String, Sendable {
        /// A value that goes up and down.
        case gauge
        /// A running total that only grows (a reset starts it again from zero).
        case counter
    }

    /// One series: its labels and value.
    public struct Sample: Sendable, Equatable {
        /// Label names and values; rendered sorted by name.
        public var labels: [String: String]
        /// The value; NaN and infinities are written as `NaN`, `+Inf`, `-Inf`.
        public var value: Double

        /// A sample of `value` with `labels`.
        public init(_ value: Double, labels: [String: String] = [:]) {
            self.value = value
            self.labels = labels
        }
    }

    /// The metric name, `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    public var name: String
    /// One line saying what the metric measures.
    public var help: String
    /// Gauge or counter.
    public var kind: Kind
    /// The series; a family may have none (HELP and TYPE are still written).
    public var samples: [Sample]

    /// A family; `name` and every label name must follow Prometheus' grammar.
    public init(_ name: String, _ kind: Kind, help: String, samples: [Sample]) {
        precondition(Self.isMetricName(name), "bad metric name \(name)")
        precondition(samples.allSatisfy { $0.labels.keys.allSatisfy(Self.isLabelName) }, "bad label name in \(name)")
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }

    /// A family of one unlabelled sample.
    public init(_ name: String, _ kind: Kind, help: String, value: Double) {
        self.init(name, kind, help: help, samples: [Sample(value)])
    }

    /// The family in text format, ending in a newline.
    public var text: String {
        var out = "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.rawValue)\n"
        for sample in samples {
            out += Self.series(name, sample.labels) + " " + Self.format(sample.value) + "\n"
        }
        return out
    }

    /// A series as a sample line starts: `name{label="value",…}`, labels sorted by name and escaped.
    static func series(_ name: String, _ labels: [String: String]) -> String {
        guard !labels.isEmpty else { return name }
        return name + "{"
            + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(escapeLabelValue($0.value))\"" }
            .joined(separator: ",") + "}"
    }

    /// Several families, one after the other: a whole exposition.
    public static func text(_ families: [MetricFamily]) -> String {
        families.map(\.text).joined()
    }

    /// HELP text escaped: backslash and newline.
    static func escapeHelp(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A label value escaped: backslash, double quote and newline.
    static func escapeLabelValue(_ text: String) -> String {
        escapeHelp(text).replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// A sample value: whole numbers without a fraction, `NaN`, `+Inf`, `-Inf`, else Swift's shortest form.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Whether `name` is a valid metric name.
    public static func isMetricName(_ name: String) -> Bool {
        isName(name, extra: ":")
    }

    /// Whether `name` is a valid label name (names starting `__` are reserved for Prometheus itself).
    public static func isLabelName(_ name: String) -> Bool {
        isName(name, extra: "") && !name.hasPrefix("__")
    }

    private static func isName(_ name: String, extra: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        func letter(_ c: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "_" || extra.unicodeScalars.contains(c)
        }
        return letter(first) && name.unicodeScalars.allSatisfy { letter($0) || ("0"..."9").contains($0) }
    }
}
