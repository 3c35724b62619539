import Foundation

extension Duration {
    /// Reads a duration written for people: `90` (seconds), `45s`, `45m`, `2h`, `1.5h`, `1h30m`, `1d`, `250ms`.
    ///
    /// Units are `ms`, `s`, `m`, `h` and `d` (also `sec`, `min`, `hr`); a number without a unit is
    /// seconds, but only on its own. Returns nil for anything else, negative values and ones
    /// past 10^15 seconds (which `Duration` cannot hold from a `Double`) included.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds <= Self.largest, seconds >= 0, trimmed.first?.isNumber == true {
            self = .seconds(seconds)
            return
        }
        var total = 0.0
        var rest = Substring(trimmed)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            rest = rest.dropFirst(number.count).drop { $0 == " " }
            let unit = rest.prefix { $0.isASCII && $0.isLetter }
            rest = rest.dropFirst(unit.count).drop { $0 == " " }
            guard let value = Double(number), let scale = Self.unitSeconds[String(unit.lowercased())] else {
                return nil
            }
            total += value * scale
        }
        guard total <= Self.largest else { return nil }
        self = .seconds(total)
    }

    private static let largest = 1e15

    private static let unitSeconds: [String: Double] = [
        "ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3_600, "hr": 3_600, "d": 86_400,
    ]
}
