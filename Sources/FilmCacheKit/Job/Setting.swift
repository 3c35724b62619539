/// The range of one numeric setting, the same for its flag and its job file key.
public struct SettingRange: Sendable {
    /// The values taken, in the setting's unit.
    public let bounds: ClosedRange<Double>
    /// A value outside ``bounds`` with a meaning of its own (a rate of 0 is no limit).
    public let alsoAllowed: Double?
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
    public var requirement: String {
        let span = "from \(Self.format(bounds.lowerBound)) to \(Self.format(bounds.upperBound))\(unit)"
        guard let alsoAllowed else { return "must be \(span)" }
        return "must be \(Self.format(alsoAllowed)) or \(span)"
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// One day, the longest wait any retry, timeout or cool-down takes, in seconds.
private let day: Double = 86_400

extension JobKey {
    /// The range of a numeric setting, `nil` for the others; flags and job files both check it.
    ///
    /// docs/JOBS.md lists the same ranges.
    public var range: SettingRange? {
        switch self {
        case .rate: SettingRange(0.001...1_000, unit: " requests a second", alsoAllowed: 0)
        case .burst: SettingRange(1...1_000)
        case .maxInFlight: SettingRange(1...256)
        case .dailyLimit: SettingRange(0...100_000_000)
        case .reserve: SettingRange(0...99, unit: " (percent)")
        case .ttlDays, .recentTTLDays, .recentWindowDays, .oldTTLDays, .notFoundTTLDays,
            .titleNotFoundTTLDays:
            SettingRange(0...36_500, unit: " days")
        case .oldAfterYears: SettingRange(0...200, unit: " years")
        case .maxRuntime: SettingRange(1...365 * day, unit: " seconds")
        case .claimLease: SettingRange(1...day, unit: " seconds")
        case .timeout, .connectTimeout: SettingRange(0.001...day, unit: " seconds")
        case .retryBase, .retryCap, .breakerCoolDown: SettingRange(0...day, unit: " seconds")
        case .maxAttempts: SettingRange(1...100)
        case .breakerPauseAfter, .breakerStopAfter: SettingRange(1...1_000_000)
        case .posterRate: SettingRange(0.001...10_000, unit: " requests a second", alsoAllowed: 0)
        case .posterMaxInFlight: SettingRange(1...256)
        case .posterMaxBytes: SettingRange(1_024...104_857_600, unit: " bytes")
        case .posterRevalidateDays, .posterGoneRetryDays: SettingRange(0...36_500, unit: " days")
        case .answerTTLHours, .negativeTTLHours: SettingRange(0...87_600, unit: " hours")
        case .requestTimeout, .requestHeadTimeout: SettingRange(0.1...3_600, unit: " seconds")
        case .progressInterval: SettingRange(0.1...day, unit: " seconds")
        case .worklists, .db, .dbPasswordFile, .apiKeyFile, .apiKeyEnv, .baseURL, .quotaTimezone, .worklistFormat,
            .metricsFile,
            .logFormat, .posterStore, .posterAllowHosts:
            nil
        }
    }

    /// The command-line flag setting the same value: `--max-in-flight` for `max_in_flight`.
    public var flag: String { "--" + String(rawValue.map { $0 == "_" ? "-" : $0 }) }

    /// Settings whose values must be in order: the first no more than the second.
    public static let ordered: [(smaller: JobKey, larger: JobKey)] = [
        (.retryBase, .retryCap), (.breakerPauseAfter, .breakerStopAfter),
    ]

    /// What is wrong with `values` (by key, in each key's unit): a value out of its range or a
    /// pair out of order, named with `name` (the flag or the job key); empty when all is well.
    public static func problems(_ values: [JobKey: Double], name: (JobKey) -> String) -> [(JobKey, String)] {
        var problems: [(JobKey, String)] = []
        for key in allCases {
            guard let value = values[key], let range = key.range, !range.contains(value) else { continue }
            problems.append((key, "\(name(key)) \(range.requirement)"))
        }
        for (smaller, larger) in ordered {
            guard let low = values[smaller], let high = values[larger], low > high else { continue }
            problems.append((larger, "\(name(smaller)) is more than \(name(larger))"))
        }
        return problems
    }
}
