/// Settings given by one source, a job file or the flags, by key; a setting not given is absent.
///
/// The one way values meet: ``overlaid(by:)`` puts the flags over the job file, and ``value(_:)``
/// falls back to the registry's default, so for every setting a flag given beats the job file,
/// which beats the default.
public struct SettingValues: Sendable, Equatable {
    private var given: [JobKey: any Sendable] = [:]

    /// Nothing given.
    public init() {}

    /// The value given for `setting`, nil when none was.
    public subscript<Value>(_ setting: Setting<Value>) -> Value? {
        get { given[setting.key] as? Value }
        set {
            if let newValue { given[setting.key] = newValue } else { given[setting.key] = nil }
        }
    }

    /// The value given for `setting`, else its default.
    public func value<Value>(_ setting: Setting<Value>) -> Value { self[setting] ?? setting.default }

    /// Whether a value was given for `key`.
    public func contains(_ key: JobKey) -> Bool { given[key] != nil }

    /// The keys given.
    public var keys: Set<JobKey> { Set(given.keys) }

    /// Sets `key` to a value its setting read.
    mutating func set(_ key: JobKey, to value: any Sendable) { given[key] = value }

    /// These values with those `other` gives in their place.
    public func overlaid(by other: SettingValues) -> SettingValues {
        var merged = self
        merged.given.merge(other.given) { _, new in new }
        return merged
    }

    /// The values given that are numbers, in each setting's unit.
    public var numbers: [JobKey: Double] {
        given.reduce(into: [:]) { numbers, entry in
            if let number = entry.key.setting.number(entry.value) { numbers[entry.key] = number }
        }
    }

    /// What is wrong with these values: one out of its range, or a pair given out of order,
    /// named with `name` (the flag or the job key); empty when all is well.
    public func problems(name: (JobKey) -> String) -> [(JobKey, String)] {
        Self.problems(numbers, name: name)
    }

    /// What is wrong with `numbers` (by key, in each setting's unit): a value out of its range or a
    /// pair out of order, named with `name`; empty when all is well. Flags and job files both call it.
    public static func problems(_ numbers: [JobKey: Double], name: (JobKey) -> String) -> [(JobKey, String)] {
        var problems: [(JobKey, String)] = []
        for key in JobKey.allCases {
            guard let value = numbers[key], let range = key.range, !range.contains(value) else { continue }
            problems.append((key, "\(name(key)) \(range.requirement)"))
        }
        for order in SettingOrder.all {
            guard let low = numbers[order.smaller], let high = numbers[order.larger], low > high else { continue }
            problems.append((order.larger, "\(name(order.smaller)) is more than \(name(order.larger))"))
        }
        return problems
    }

    /// The pairs out of order once defaults fill in: a larger setting given below its smaller one,
    /// given or not (a smaller one raised alone above the other's default is taken).
    public func orderProblems() -> [SettingOrder] {
        let numbers = numbers
        return SettingOrder.all.filter { order in
            guard let high = numbers[order.larger] else { return false }
            let low = numbers[order.smaller] ?? order.smaller.setting.defaultNumber ?? -.infinity
            return low > high
        }
    }

    /// Whether both give the same settings with the same values.
    public static func == (a: SettingValues, b: SettingValues) -> Bool {
        guard a.keys == b.keys else { return false }
        return a.given.allSatisfy { key, value in b.given[key].map { key.setting.same(value, $0) } ?? false }
    }
}
