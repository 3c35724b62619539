import Logging

/// Renders a warm's progress: the live line on a terminal, the metadata of a log line elsewhere.
///
/// `  1,234/5,000 films  42.1/s  ETA 1m29s  quota left 3,210`
public enum ProgressLine {
    /// The one-line form, without control characters (the caller redraws it).
    public static func text(_ progress: WarmProgress) -> String {
        let eta = progress.estimatedTimeLeft.map(DurationText.compact) ?? "--"
        return "  \(grouped(progress.done))/\(grouped(progress.total)) films  \(rate(progress.rate))/s  ETA \(eta)"
            + "  quota left \(grouped(progress.quotaLeft))"
    }

    /// The same facts as log metadata: plain numbers, the ETA as `1m29s` (`-` while unknown).
    public static func metadata(_ progress: WarmProgress) -> Logger.Metadata {
        [
            "done": "\(progress.done)", "total": "\(progress.total)", "rate": "\(rate(progress.rate, grouping: false))",
            "eta": "\(progress.estimatedTimeLeft.map(DurationText.compact) ?? "-")",
            "quota_left": "\(progress.quotaLeft)", "fetched": "\(progress.fetched)",
            "not_found": "\(progress.notFound)", "failed": "\(progress.failed)", "calls": "\(progress.calls)",
        ]
    }

    /// `value` with a comma between groups of three digits: `1,234,567`.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    /// A rate per second: one decimal below 100 (`42.1`), whole and grouped above (`1,234`).
    public static func rate(_ perSecond: Double, grouping: Bool = true) -> String {
        guard perSecond.isFinite, perSecond > 0 else { return "0.0" }
        if perSecond >= 99.95 {
            let whole = Int(perSecond.rounded())
            return grouping ? grouped(whole) : String(whole)
        }
        let tenths = Int((perSecond * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
