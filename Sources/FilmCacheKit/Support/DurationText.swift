/// Durations as people type and read them: `90`, `90s`, `45m`, `2h`, `1h30m`, `1.5h`.
public enum DurationText {
    /// Seconds per unit letter, largest first; a duration names each unit at most once, in this order.
    private static let units: [(Character, Double)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]

    /// Parses a plain number of seconds or numbers with units (`d`, `h`, `m`, `s`); `nil` when malformed.
    ///
    /// Negative, infinite and empty values are malformed; zero is not.
    public static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingWhitespace().lowercased()
        guard !trimmed.isEmpty else { return nil }
        if let seconds = Double(trimmed) {
            return seconds.isFinite && seconds >= 0 && isPlainNumber(trimmed) ? .seconds(seconds) : nil
        }
        var total = 0.0
        var number = ""
        var nextUnit = 0
        for character in trimmed {
            if character.isASCII && (character.isNumber || character == ".") {
                number.append(character)
                continue
            }
            guard let index = units[nextUnit...].firstIndex(where: { $0.0 == character }),
                isPlainNumber(number), let value = Double(number)
            else { return nil }
            total += value * units[index].1
            nextUnit = index + 1
            number = ""
        }
        guard number.isEmpty, total.isFinite else { return nil }
        return .seconds(total)
    }

    /// A short form for progress lines: `45s`, `1m29s`, `2h03m`, `1d04h`, rounded to the second.
    public static func compact(_ duration: Duration) -> String {
        let seconds = max(0, Int(duration.inSeconds.rounded()))
        let (days, hours, minutes, secs) = (
            seconds / 86_400, seconds % 86_400 / 3_600, seconds % 3_600 / 60, seconds % 60
        )
        if days > 0 { return "\(days)d" + twoDigits(hours) + "h" }
        if hours > 0 { return "\(hours)h" + twoDigits(minutes) + "m" }
        if minutes > 0 { return "\(minutes)m" + twoDigits(secs) + "s" }
        return "\(secs)s"
    }

    /// Digits with at most one decimal point, nothing else (no sign, exponent, `inf` or `nan`).
    private static func isPlainNumber(_ text: String) -> Bool {
        !text.isEmpty && text != "." && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
            && text.filter { $0 == "." }.count <= 1
    }

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line ends.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
