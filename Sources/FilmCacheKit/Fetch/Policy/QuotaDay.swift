import Foundation

/// One day of an OMDb key's quota: the calendar day in the quota's time zone, and when it begins and ends.
///
/// OMDb does not document when its day resets, so the zone is configuration (UTC by default).
/// Days are calendar days in that zone, so around daylight-saving switches a quota day lasts
/// 23 or 25 hours.
public struct QuotaDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The calendar day in ``zone``.
    public let date: CalendarDate
    /// The zone whose midnight resets the quota.
    public let zone: QuotaZone
    /// The first instant of the day.
    public let start: Date
    /// The first instant of the next day: when the quota resets.
    public let nextReset: Date

    /// The quota day that contains `instant`.
    public init(containing instant: Date, in zone: QuotaZone = .utc) {
        if zone.isUTC {
            let (year, month, day, _) = Timestamp.civil(instant)
            self.init(utc: CalendarDate(year: year, month: month, day: day), zone)
            return
        }
        let calendar = QuotaDay.calendar(in: zone.timeZone)
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        self.init(
            date: CalendarDate(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1),
            zone: zone, start: calendar.startOfDay(for: instant), calendar: calendar)
    }

    /// The quota day for a calendar day; `nil` if the day does not exist.
    public init?(date: CalendarDate, in zone: QuotaZone = .utc) {
        guard CalendarDate.isValid(year: date.year, month: date.month, day: date.day) else { return nil }
        if zone.isUTC {
            self.init(utc: date, zone)
            return
        }
        let calendar = QuotaDay.calendar(in: zone.timeZone)
        // Noon exists on every day, even where a switch skips midnight.
        let noonParts = DateComponents(year: date.year, month: date.month, day: date.day, hour: 12)
        guard let noon = calendar.date(from: noonParts) else { return nil }
        self.init(date: date, zone: zone, start: calendar.startOfDay(for: noon), calendar: calendar)
    }

    /// The quota day for a key such as `"2026-11-21"`; `nil` for anything else.
    public init?(key: String, in zone: QuotaZone = .utc) {
        guard let date = CalendarDate(iso: key) else { return nil }
        self.init(date: date, in: zone)
    }

    /// A day of UTC: 24 hours from its midnight, no calendar made (nor the time zone it would read
    /// for itself first).
    private init(utc date: CalendarDate, _ zone: QuotaZone) {
        self.date = date
        self.zone = zone
        start = Timestamp.midnight(year: date.year, month: date.month, day: date.day)
        nextReset = start.addingTimeInterval(86_400)
    }

    private init(date: CalendarDate, zone: QuotaZone, start: Date, calendar: Calendar) {
        self.date = date
        self.zone = zone
        self.start = start
        let noonParts = DateComponents(year: date.year, month: date.month, day: date.day + 1, hour: 12)
        let nextNoon = calendar.date(from: noonParts) ?? start.addingTimeInterval(36 * 3_600)
        self.nextReset = calendar.startOfDay(for: nextNoon)
    }

    /// The day as an ISO key, `"2026-11-21"`, for ledgers and reports.
    public var key: String { date.description }

    /// The day as an ISO key.
    public var description: String { key }

    /// How long the day lasts: 24 hours, or 23 or 25 across a daylight-saving switch.
    public var length: Duration { Duration(timeInterval: nextReset.timeIntervalSince(start)) }

    /// The following quota day.
    public var next: QuotaDay { QuotaDay(containing: nextReset, in: zone) }

    /// Whether `instant` falls within this day.
    public func contains(_ instant: Date) -> Bool {
        start <= instant && instant < nextReset
    }

    /// The minutes of the day, as minutes since 1970 UTC: what the ledger counts calls by.
    public var minutes: Range<Int> { Self.minute(of: start)..<Self.minute(of: nextReset) }

    /// `minute` if it lies within the day, else the day's nearest minute; the first without one.
    /// A call is always charged to a minute of the day whose budget it was granted from.
    public func minute(clamping minute: Int?) -> Int {
        let minutes = self.minutes
        guard let minute else { return minutes.lowerBound }
        return min(max(minute, minutes.lowerBound), minutes.upperBound - 1)
    }

    /// The minute since 1970 UTC that `instant` falls in.
    public static func minute(of instant: Date) -> Int {
        Int((instant.timeIntervalSince1970 / 60).rounded(.down))
    }

    /// Orders days by when they start.
    public static func < (a: QuotaDay, b: QuotaDay) -> Bool {
        a.start < b.start
    }

    private static func calendar(in timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
