/// Durations as people read them on progress lines (`Duration(parsing:)` reads what they type).
public enum DurationText {
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

    private static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
