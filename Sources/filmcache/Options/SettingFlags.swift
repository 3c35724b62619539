import ArgumentParser
import FilmCacheKit

/// The settings one group of flags was given: as numbers, checked against the registry's ranges
/// (exit 64 with the range named), and as values, laid over the job file's.
struct SettingFlags {
    /// The settings given, for the configuration.
    private(set) var values = SettingValues()
    /// The numeric settings given, as typed, in each setting's unit.
    private var numbers: [JobKey: Double] = [:]

    /// Records `value` for `setting` when given.
    mutating func add<Value>(_ setting: Setting<Value>, _ value: Value?) {
        guard let value else { return }
        values[setting] = value
        if let number = setting.number(value) { numbers[setting.key] = number }
    }

    /// Records a number of seconds for a duration setting when given; a value out of its range is
    /// kept only for the check (such a number may be past what a duration holds).
    mutating func add(_ setting: Setting<Duration>, seconds: Double?) {
        guard let seconds else { return }
        numbers[setting.key] = seconds
        if setting.range?.contains(seconds) ?? true { values[setting] = .seconds(seconds) }
    }

    /// Throws for the first value out of its range, or pair given out of order.
    func check() throws {
        if let (_, message) = SettingValues.problems(numbers, name: \.flag).first {
            throw ValidationError(message)
        }
    }
}
