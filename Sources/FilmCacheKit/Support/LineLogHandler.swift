import Foundation
import Logging

/// Writes each event as one line in one of three formats; every logged text is escaped alike.
///
/// - `human`: `2026-11-21T03:17:00Z info filmcache: plan considered=292`
/// - `logfmt`: `ts=2026-11-21T03:17:00Z level=info msg="plan" considered=292` — `msg` always
///   quoted, other values only when they must be (empty, or holding a space, `=`, `"`, `\` or an
///   escaped character); keys keep printable characters other than `=` and `"`, the rest become `_`.
/// - `json`: `{"ts":"…","level":"info","msg":"plan","considered":"292"}` — metadata arrays and
///   dictionaries become JSON arrays and objects.
///
/// Metadata follows in key order. Text from outside (a server's answer, a file) cannot move the
/// cursor, clear the terminal, start a forged line or reorder what is shown: control characters
/// (C0, DEL, C1) and bidirectional overrides and isolates are written as `\n`, `\r`, `\t` or
/// `\uXXXX` in every format, and `\` as `\\`.
public struct LineLogHandler: LogHandler {
    /// The three line formats.
    public enum Format: String, Sendable, CaseIterable {
        /// Time, level, label and message, then `key=value` fields: for people at a terminal.
        case human
        /// `key=value` lines, for log collectors and grep.
        case logfmt
        /// One JSON object per line.
        case json
    }

    /// Metadata attached to every event from this handler.
    public var metadata: Logger.Metadata = [:]
    /// Adds metadata at each event (task-locals, for instance).
    public var metadataProvider: Logger.MetadataProvider?
    /// The least severe level written.
    public var logLevel: Logger.Level = .info
    private let label: String
    private let format: Format
    private let now: @Sendable () -> Date
    private let write: @Sendable (String) -> Void

    /// A handler writing `format` lines to `write` (standard error when `nil`) with times from `now`;
    /// `label` is written by the human format only.
    public init(
        label: String, format: Format, metadataProvider: Logger.MetadataProvider? = nil,
        now: @escaping @Sendable () -> Date, write: (@Sendable (String) -> Void)? = nil
    ) {
        self.label = label
        self.format = format
        self.metadataProvider = metadataProvider
        self.now = now
        self.write = write ?? { StandardError.write($0) }
    }

    /// Reads or sets one metadata value.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one line.
    public func log(event: LogEvent) {
        let record = LogRecord(event: event, metadata: metadata, provider: metadataProvider, date: now())
        write(Self.line(record, format: format, label: label))
    }

    /// The line for `record` in `format`, without a line end.
    static func line(_ record: LogRecord, format: Format, label: String = "filmcache") -> String {
        switch format {
        case .human:
            var out = "\(record.timestamp) \(record.level.rawValue) \(escaped(label)): " + escaped(record.message)
            for (key, value) in record.fields { out += " " + self.key(key) + "=" + self.value(value.description) }
            return out
        case .logfmt:
            var out = "ts=\(record.timestamp) level=\(record.level.rawValue) msg=" + quoted(record.message)
            for (key, value) in record.fields { out += " " + self.key(key) + "=" + self.value(value.description) }
            return out
        case .json:
            var out =
                "{\"ts\":" + quoted(record.timestamp) + ",\"level\":" + quoted(record.level.rawValue) + ",\"msg\":"
                + quoted(record.message)
            for (key, value) in record.fields { out += "," + quoted(key) + ":" + json(value) }
            return out + "}"
        }
    }

    /// `value` as JSON: a string, an array, or an object with sorted keys.
    static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): quoted(text)
        case .stringConvertible(let convertible): quoted(convertible.description)
        case .array(let values): "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let values):
            "{" + values.sorted { $0.key < $1.key }.map { quoted($0.key) + ":" + json($0.value) }.joined(separator: ",")
                + "}"
        }
    }

    /// `key` with anything that would end or confuse a key replaced by `_`.
    static func key(_ key: String) -> String {
        guard !key.isEmpty else { return "_" }
        return String(
            String.UnicodeScalarView(
                key.unicodeScalars.map {
                    $0.value <= 0x20 || LogText.isControl($0) || $0 == "=" || $0 == "\"" ? "_" : $0
                }))
    }

    /// `text` as it is, or quoted when it has to be.
    static func value(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && !text.unicodeScalars.contains {
                $0.value <= 0x20 || LogText.isControl($0) || $0 == "=" || $0 == "\"" || $0 == "\\"
            }
        return plain ? text : quoted(text)
    }

    /// `text` in double quotes, `"` escaped too: a JSON string literal.
    static func quoted(_ text: String) -> String {
        "\"" + escaped(text, quote: true) + "\""
    }

    /// `text` with `\`, every control character and every bidirectional control escaped (and `"` when `quote`).
    static func escaped(_ text: String, quote: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { LogText.isControl($0) || $0 == "\\" || (quote && $0 == "\"") })
        else {
            return text
        }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"" where quote: out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where LogText.isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

}
