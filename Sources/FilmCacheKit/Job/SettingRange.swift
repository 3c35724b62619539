/// The range of one numeric setting, the same for its flag and its job file key.
public struct SettingRange: Sendable {
    /// The values taken, in the setting's unit.
    package let bounds: ClosedRange<Double>
    /// A value outside ``bounds`` with a meaning of its own (a rate of 0 is no limit).
    package let alsoAllowed: Double?
    /// The unit values are written in, for messages.
    public let unit: String

    init(_ bounds: ClosedRange<Double>, unit: String = "", alsoAllowed: Double? = nil) {
        self.bounds = bounds
        self.unit = unit
        self.alsoAllowed = alsoAllowed
    }

    /// Whether `value` is taken (NaN never is).
    public func contains(_ value: Double) -> Bool {
        bounds.contains(value) || value == alsoAllowed
    }

    /// "must be from 1 to 256", with the unit and any value allowed besides.
    package var requirement: String {
        let span = "from \(SettingText.plain(bounds.lowerBound)) to \(SettingText.plain(bounds.upperBound))\(unit)"
        guard let alsoAllowed else { return "must be \(span)" }
        return "must be \(SettingText.plain(alsoAllowed)) or \(span)"
    }

    /// The bounds as `format` writes each, "LOW to HIGH".
    func span(_ format: (Double) -> String) -> String {
        "\(format(bounds.lowerBound)) to \(format(bounds.upperBound))"
    }
}
