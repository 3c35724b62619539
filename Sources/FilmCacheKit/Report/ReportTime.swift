import Foundation

/// How the reports write times: instants in the database's UTC form, wall times in the quota's zone.
enum ReportTime {
    /// The wall-clock time of `instant` in `zone`, `"03:10"`.
    static func timeOfDay(_ instant: Date, in zone: QuotaZone) -> String {
        let minute = minuteOfDay(instant, in: zone)
        return two(minute / 60) + ":" + two(minute % 60)
    }

    /// Minutes after local midnight of `instant` in `zone`.
    static func minuteOfDay(_ instant: Date, in zone: QuotaZone) -> Int {
        if zone.isUTC { return Timestamp.civil(instant).seconds / 60 }
        let parts = calendar(zone.timeZone).dateComponents([.hour, .minute], from: instant)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
    }

    /// The calendar day of `instant` in `zone`, `"2026-11-21"`.
    static func day(_ instant: Date, in zone: QuotaZone) -> String {
        QuotaDay(containing: instant, in: zone).key
    }

    /// A wait for people, to the minute: `"12h 05m"`, `"3m"`, `"2d 4h"`.
    static func span(_ seconds: TimeInterval) -> String {
        let minutes = max(0, Int((seconds / 60).rounded(.up)))
        if minutes < 60 { return "\(minutes)m" }
        if minutes < 24 * 60 { return "\(minutes / 60)h " + two(minutes % 60) + "m" }
        return "\(minutes / (24 * 60))d \((minutes / 60) % 24)h"
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    private static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
