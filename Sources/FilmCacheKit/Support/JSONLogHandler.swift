import Foundation
import Logging

/// Writes each event as one JSON object on one line: `{"ts":"…","level":"info","msg":"plan","considered":"292"}`.
///
/// `ts`, `level` and `msg` come first, then metadata in key order. Values are JSON strings
/// (metadata arrays and dictionaries become JSON arrays and objects), escaped per RFC 8259:
/// `"` and `\` with a backslash, control characters as `\n`, `\r`, `\t` or `\u00XX`.
public struct JSONLogHandler: LogHandler {
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

    /// The JSON object for `record`, on one line without a line end.
    static func line(_ record: LogRecord) -> String {
        var out =
            "{\"ts\":" + string(record.timestamp) + ",\"level\":" + string(record.level.rawValue) + ",\"msg\":"
            + string(record.message)
        for (key, value) in record.fields {
            out += "," + string(key) + ":" + json(value)
        }
        return out + "}"
    }

    /// `value` as JSON: a string, an array, or an object with sorted keys.
    static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): string(text)
        case .stringConvertible(let convertible): string(convertible.description)
        case .array(let values): "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let values):
            "{" + values.sorted { $0.key < $1.key }.map { string($0.key) + ":" + json($0.value) }.joined(separator: ",")
                + "}"
        }
    }

    /// `text` as a JSON string literal.
    static func string(_ text: String) -> String {
        var out: [UInt8] = []
        JSONString.append(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
