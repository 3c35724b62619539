import Foundation

/// How setting values are written in messages, help and docs/JOBS.md.
enum SettingText {
    /// `line` with each `marker` in it replaced by `text`.
    ///
    /// Every command line reads the help of each of its flags, so this runs at every start: Swift's
    /// own strings here, where Foundation's `replacingOccurrences` goes through CFString and maps its
    /// code into every process.
    static func replacing(_ marker: String, with text: String, in line: String) -> String {
        let bytes = Array(line.utf8)
        let mark = Array(marker.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + text.utf8.count)
        var index = 0
        while index < bytes.count {
            if !mark.isEmpty, bytes[index...].starts(with: mark) {
                result += text.utf8
                index += mark.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// `256`, `0.001`: whole numbers without a fraction, no grouping (as messages and help write them).
    static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// `36,500`: whole numbers of five digits or more grouped by thousands (as docs/JOBS.md writes them).
    static func grouped(_ value: Double) -> String {
        guard value == value.rounded(), abs(value) >= 10_000, abs(value) < 1e15 else { return plain(value) }
        var digits = String(Int(abs(value)))
        var groups: [String] = []
        while digits.count > 3 {
            groups.insert(String(digits.suffix(3)), at: 0)
            digits.removeLast(3)
        }
        groups.insert(digits, at: 0)
        return (value < 0 ? "-" : "") + groups.joined(separator: ",")
    }

    /// `1 ms`, `0.1 s`, `10 min`, `1 hour`, `365 days`: seconds in words.
    static func words(seconds: Double) -> String {
        func unit(_ count: Double, _ one: String, _ many: String) -> String {
            "\(plain(count)) \(count == 1 ? one : many)"
        }
        if seconds == 0 { return "0" }
        if seconds < 0.1 { return "\(plain(seconds * 1_000)) ms" }
        if seconds.truncatingRemainder(dividingBy: 86_400) == 0 { return unit(seconds / 86_400, "day", "days") }
        if seconds.truncatingRemainder(dividingBy: 3_600) == 0 { return unit(seconds / 3_600, "hour", "hours") }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(plain(seconds / 60)) min" }
        return "\(plain(seconds)) s"
    }

    /// `30s`, `10m`, `2h`: a duration as a flag takes it.
    static func short(_ duration: Duration) -> String {
        let seconds = duration.inSeconds
        if seconds >= 3_600, seconds.truncatingRemainder(dividingBy: 3_600) == 0 { return "\(plain(seconds / 3_600))h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(plain(seconds / 60))m" }
        return "\(plain(seconds))s"
    }
}
