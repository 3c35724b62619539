import Foundation

/// The type of one setting: how a job file's value is read, how it compares with a range, and
/// how it is written in help and in docs/JOBS.md.
package struct SettingKind<Value: Sendable & Equatable>: Sendable {
    /// The type as docs/JOBS.md names it: "integer", "duration", "path".
    let name: String
    /// Reads a job file entry given for `key`, its range checked.
    let read: @Sendable (JobValueReader, JobKey) throws(JobFileError.Issue) -> Value
    /// The value as a number in the setting's unit, for ranges and order; nil for the others.
    let number: @Sendable (Value) -> Double?
    /// The value as help writes it (`30`, `10m`, `https://www.omdbapi.com/`).
    let help: @Sendable (Value) -> String
    /// The value as docs/JOBS.md writes it (`30 s`, `5,242,880`, `` `auto` ``).
    let docs: @Sendable (Value) -> String
    /// A bound of the range as help writes it.
    let helpBound: @Sendable (Double) -> String
    /// A bound of the range as docs/JOBS.md writes it.
    let docsBound: @Sendable (Double) -> String
}

extension SettingKind where Value == Double {
    /// A number, whole or not.
    static let number = SettingKind(
        name: "number", read: { reader, key throws(JobFileError.Issue) in try reader.number(in: key) },
        number: { $0 }, help: SettingText.plain, docs: SettingText.grouped, helpBound: SettingText.plain,
        docsBound: SettingText.grouped)

    /// A percentage, written as a number.
    static let percentage = SettingKind(
        name: "number",
        read: { reader, key throws(JobFileError.Issue) in try reader.number(in: key, expected: "a percentage") },
        number: { $0 }, help: SettingText.plain, docs: SettingText.grouped, helpBound: SettingText.plain,
        docsBound: SettingText.grouped)
}

extension SettingKind where Value == Int {
    /// A whole number.
    static let integer = SettingKind(
        name: "integer", read: { reader, key throws(JobFileError.Issue) in try reader.integer(in: key) },
        number: { Double($0) }, help: { String($0) }, docs: { SettingText.grouped(Double($0)) },
        helpBound: SettingText.plain, docsBound: SettingText.grouped)
}

extension SettingKind where Value == Duration {
    /// A duration whose flag takes seconds as a number (`--timeout 30`).
    static let seconds = SettingKind(
        name: "duration", read: { reader, key throws(JobFileError.Issue) in try reader.duration(in: key) },
        number: { $0.inSeconds }, help: { SettingText.plain($0.inSeconds) },
        docs: { SettingText.words(seconds: $0.inSeconds) }, helpBound: SettingText.plain,
        docsBound: { SettingText.words(seconds: $0) })

    /// A duration whose flag takes text with units too (`--max-runtime 2h`).
    static let duration = SettingKind(
        name: "duration", read: { reader, key throws(JobFileError.Issue) in try reader.duration(in: key) },
        number: { $0.inSeconds }, help: SettingText.short, docs: { SettingText.words(seconds: $0.inSeconds) },
        helpBound: { SettingText.words(seconds: $0) }, docsBound: { SettingText.words(seconds: $0) })
}

extension SettingKind where Value == String {
    /// Text, `${…}` expanded.
    static let text = strings("string") { reader, _ throws(JobFileError.Issue) in try reader.string() }

    /// A path, made absolute against the job file's directory.
    static let path = strings("path") { reader, _ throws(JobFileError.Issue) in try reader.path() }

    /// The name of an environment variable.
    static let variableName = strings("variable name") { reader, _ throws(JobFileError.Issue) in
        try reader.variableName()
    }

    /// One of `choices`.
    static func choice(_ choices: [String]) -> SettingKind {
        strings(choices.map { "`\($0)`" }.joined(separator: ", ")) { reader, _ throws(JobFileError.Issue) in
            try reader.choice(choices)
        }
    }

    /// Text of the kind `name`, read by `read`.
    static func strings(
        _ name: String, read: @escaping @Sendable (JobValueReader, JobKey) throws(JobFileError.Issue) -> String
    ) -> SettingKind {
        SettingKind(
            name: name, read: read, number: { _ in nil }, help: { $0 }, docs: { "`\($0)`" },
            helpBound: SettingText.plain, docsBound: SettingText.plain)
    }
}

extension SettingKind where Value == [String] {
    /// Paths, made absolute against the job file's directory; at least one.
    static let paths = lists("array of paths") { reader, _ throws(JobFileError.Issue) in try reader.paths() }

    /// Host names or addresses, normalized.
    static let hosts = lists("array of hosts") { reader, _ throws(JobFileError.Issue) in try reader.hosts() }

    /// Names from `choices`, each at most once; at least one.
    static func choices(_ choices: [String]) -> SettingKind {
        lists("array of " + choices.map { "`\($0)`" }.joined(separator: ", ")) {
            reader, _ throws(JobFileError.Issue) in try reader.choices(choices)
        }
    }

    private static func lists(
        _ name: String, read: @escaping @Sendable (JobValueReader, JobKey) throws(JobFileError.Issue) -> [String]
    ) -> SettingKind {
        SettingKind(
            name: name, read: read, number: { _ in nil }, help: { $0.joined(separator: ", ") },
            docs: { $0.map { "`\($0)`" }.joined(separator: ", ") }, helpBound: SettingText.plain,
            docsBound: SettingText.plain)
    }
}

extension SettingKind where Value == QuotaZone {
    /// A time zone identifier.
    static let timeZone = SettingKind(
        name: "time zone identifier", read: { reader, _ throws(JobFileError.Issue) in try reader.timeZone() },
        number: { _ in nil }, help: { $0.identifier }, docs: { "`\($0.identifier)`" },
        helpBound: SettingText.plain, docsBound: SettingText.plain)
}
