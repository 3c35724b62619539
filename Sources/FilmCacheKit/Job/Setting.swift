/// One setting, declared once: its job file key (and so its flag), type, default, range, help
/// and meaning. Flags, job files, the configuration types' defaults and docs/JOBS.md all read it.
///
/// The declarations are the static members (`Setting.rate`, `Setting.claimLease`); ``SettingSpec/all``
/// lists them in ``JobKey`` order.
public struct Setting<Value: Sendable & Equatable>: Sendable {
    /// The job file key; the flag is its kebab-case form.
    public let key: JobKey
    /// How values are read and written.
    let kind: SettingKind<Value>
    /// The value when neither a flag nor the job gives one; nil when there is none.
    package let defaultValue: Value?
    /// The values taken, for numeric settings.
    public let range: SettingRange?
    /// The flag's help line without its default; `{range}` stands for the range.
    let helpLine: String?
    /// More help, shown below the flag's line.
    public let discussion: String?
    /// What the setting does, as docs/JOBS.md's table says it.
    let meaning: String
    /// The type column of docs/JOBS.md when the kind and range do not say it well.
    let typeText: String?
    /// The default as help and docs write it, when the value's own text is not the one people use.
    let defaultText: String?
    /// The default column of docs/JOBS.md for a setting without a default.
    let noDefault: String
    /// The flag column of docs/JOBS.md when it is not simply the flag.
    let flagText: String?

    init(
        _ key: JobKey, _ kind: SettingKind<Value>, default defaultValue: Value?, range: SettingRange? = nil,
        help: String? = nil, discussion: String? = nil, meaning: String, type: String? = nil,
        defaultText: String? = nil, noDefault: String = "none", flag: String? = nil
    ) {
        self.key = key
        self.kind = kind
        self.defaultValue = defaultValue
        self.range = range
        self.helpLine = help
        self.discussion = discussion
        self.meaning = meaning
        self.typeText = type
        self.defaultText = defaultText
        self.noDefault = noDefault
        self.flagText = flag
    }

    /// The default of a setting declared with one (``SettingSpecTests`` checks which are).
    public var `default`: Value {
        guard let defaultValue else { preconditionFailure("\(key.rawValue) has no default") }
        return defaultValue
    }

    /// `value` as a number in the setting's unit, for ranges and order; nil for a setting that is no number.
    public func number(_ value: Value) -> Double? { kind.number(value) }

    /// The command-line flag: `--max-in-flight` for `max_in_flight`.
    public var flag: String { key.flag }

    /// The flag's help line: what it does, its range where the line names it, and its default.
    public var help: String {
        var line = helpLine ?? meaning
        if let range { line = SettingText.replacing("{range}", with: range.span(kind.helpBound), in: line) }
        guard let defaultValue else { return line }
        let text = defaultText ?? kind.help(defaultValue)
        return line + " Default \(text)."
    }

    /// The type-erased description the registry lists.
    public var spec: SettingSpec {
        let kind = kind
        var type = typeText ?? kind.name
        if typeText == nil, let range {
            type += ", " + range.span(kind.docsBound)
            if let also = range.alsoAllowed { type += ", or \(SettingText.plain(also))" }
        }
        var docsDefault = noDefault
        if let defaultValue {
            let quoted = kind.number(defaultValue) == nil
            docsDefault = defaultText.map { quoted ? "`\($0)`" : $0 } ?? kind.docs(defaultValue)
        }
        return SettingSpec(
            key: key, range: range, help: help, discussion: discussion, type: type, defaultText: docsDefault,
            defaultNumber: defaultValue.flatMap(kind.number), meaning: meaning, flagText: flagText ?? "`\(key.flag)`",
            read: { reader, key throws(JobFileError.Issue) in try kind.read(reader, key) },
            number: { ($0 as? Value).flatMap(kind.number) },
            same: { ($0 as? Value) == ($1 as? Value) })
    }
}
