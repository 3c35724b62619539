import Foundation

/// The zone whose midnight resets the quota: UTC (the default) or a zone of the system's database.
///
/// UTC is held without a `TimeZone`. The first `TimeZone` a process makes builds Foundation's
/// time-zone cache (about 0.7 M instructions, a tenth of a `quota`), and a UTC day and its times
/// of day are counted without one (``QuotaDay``, ``ReportTime``).
public struct QuotaZone: Sendable, Hashable {
    /// The zone, `nil` for UTC.
    private let zone: TimeZone?
    /// The name the zone was given by: `UTC`, `Etc/UTC`, `America/Los_Angeles`, ….
    public let identifier: String

    /// UTC.
    public static let utc = QuotaZone(zone: nil, identifier: "UTC")

    /// The names of UTC: GMT and UTC with no offset, as `TimeZone(secondsFromGMT: 0)` and the
    /// zone database name them.
    private static let utcNames: Set<String> = ["GMT", "UTC", "GMT+0000", "Etc/UTC", "Etc/GMT"]

    private init(zone: TimeZone?, identifier: String) {
        self.zone = zone
        self.identifier = identifier
    }

    /// `timeZone`, held as UTC when its name is one of UTC's.
    public init(_ timeZone: TimeZone) {
        self.init(zone: Self.utcNames.contains(timeZone.identifier) ? nil : timeZone, identifier: timeZone.identifier)
    }

    /// The zone named `identifier` (UTC's names make no `TimeZone`); `nil` when the system knows no such zone.
    public init?(identifier: String) {
        if Self.utcNames.contains(identifier) {
            self.init(zone: nil, identifier: identifier)
            return
        }
        guard let timeZone = TimeZone(identifier: identifier) else { return nil }
        self.init(timeZone)
    }

    /// Whether this is UTC: its days and times of day are counted without a calendar.
    public var isUTC: Bool { zone == nil }

    /// The zone as a `TimeZone`, made now for UTC.
    public var timeZone: TimeZone { zone ?? TimeZone(secondsFromGMT: 0)! }

    /// The zone's name for people: `UTC` for UTC by any of its names, else its identifier.
    public var name: String { zone == nil ? "UTC" : identifier }
}
