import Foundation

/// The live line of an export or an import on a terminal: a count, its rate, and the share done
/// when the total is known; redrawn at most four times a second.
struct TransferMeter {
    /// The count at the end, if known.
    let total: Int?
    /// What is counted, e.g. `films`.
    let unit: String
    private let started = ContinuousClock.now
    private var drawn: ContinuousClock.Instant?

    /// A meter counting `unit` up to `total`.
    init(total: Int?, unit: String) {
        self.total = total
        self.unit = unit
    }

    /// Redraws the line with `count` done (and `detail` after it), unless it was drawn within the last quarter second.
    mutating func show(_ count: Int, detail: String = "") {
        let now = ContinuousClock.now
        if let drawn, drawn.duration(to: now) < RuntimeOptions.terminalInterval { return }
        drawn = now
        let seconds = max(started.duration(to: now).inSeconds, 0.001)
        var text = "  \(count)"
        if let total, total > 0 {
            text += "/\(total) \(unit) (\(min(100, count * 100 / total))%)"
        } else {
            text += " \(unit)"
        }
        text += String(format: "  %.0f/s", Double(count) / seconds) + detail
        TerminalStatusLine.standardError.show(text)
    }
}
