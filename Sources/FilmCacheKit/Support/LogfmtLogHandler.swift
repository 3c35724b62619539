import Foundation
import Logging

/// Writes each event as one logfmt line: `ts=2026-11-21T03:17:00Z level=info msg="plan" considered=292`.
///
/// `msg` is always quoted; other values only when they must be (empty, or holding a space, `=`,
/// `"`, `\` or a control character). Inside quotes `\` and `"` are escaped with a backslash,
/// line ends and tabs as `\n`, `\r`, `\t`, other control characters as `\u00XX`. Keys keep
/// printable characters other than `=` and `"`; the rest become `_`. Metadata follows in key
/// order; nested values are written in swift-log's bracket form.
public struct LogfmtLogHandler: LogHandler {
    /// Metadata attached to every event from this handler.
    public var metadata: Logger.Metadata = [:]
    /// Adds metadata at each event (task-locals, for instance).
    public var metadataProvider: Logger.MetadataProvider?
    /// The least severe level written.
    public var logLevel: Logger.Level = .info
    private let now: @Sendable () -> Date
    private let write: @Sendable (String) -> Void

    /// A handler writing to `write` (standard error when `nil`) with times from `now`; `label` is not written.
    public init(
        label: String, metadataProvider: Logger.MetadataProvider? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, write: (@Sendable (String) -> Void)? = nil
    ) {
        self.metadataProvider = metadataProvider
        self.now = now
        self.write = write ?? { LogRecord.writeToStandardError($0) }
    }

    /// Reads or sets one metadata value.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one line.
    public func log(event: LogEvent) {
        let record = LogRecord(event: event, metadata: metadata, provider: metadataProvider, date: now())
        write(Self.line(record))
    }

    /// The logfmt line for `record`, without a line end.
    static func line(_ record: LogRecord) -> String {
        var out = "ts=\(record.timestamp) level=\(record.level.rawValue) msg=" + quoted(record.message)
        for (key, value) in record.fields {
            out += " " + Self.key(key) + "=" + Self.value(value.description)
        }
        return out
    }

    /// `key` with anything that would end or confuse a key replaced by `_`.
    static func key(_ key: String) -> String {
        guard !key.isEmpty else { return "_" }
        return String(
            String.UnicodeScalarView(
                key.unicodeScalars.map { $0.value <= 0x20 || $0.value == 0x7F || $0 == "=" || $0 == "\"" ? "_" : $0 }))
    }

    /// `text` as it is, or quoted when it has to be.
    static func value(_ text: String) -> String {
        let plain =
            !text.isEmpty
            && !text.unicodeScalars.contains {
                $0.value <= 0x20 || $0.value == 0x7F || $0 == "=" || $0 == "\"" || $0 == "\\"
            }
        return plain ? text : quoted(text)
    }

    /// `text` in double quotes, escaped as a JSON string is (`\\`, `\"`, `\n`, `\u0007`, …).
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        JSONString.append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
