import Foundation
import Logging

/// One log event flattened for the line-oriented handlers: time, level, message and sorted fields.
///
/// Fields merge the handler's metadata, its provider's and the call's (later ones win), plus
/// the event's error. Whatever looks like an `apikey=` query parameter is redacted from the
/// message and every value: URLs are never logged, and this keeps a stray one harmless.
struct LogRecord {
    /// Field names the handlers write themselves; metadata under these names gets a `meta_` prefix.
    static let reservedKeys: Set<String> = ["ts", "level", "msg"]

    /// RFC 3339 time in UTC, to the second: `2026-11-21T03:17:00Z`.
    var timestamp: String
    /// The event's level.
    var level: Logger.Level
    /// The event's message, redacted.
    var message: String
    /// Metadata by key, in key order, redacted.
    var fields: [(key: String, value: Logger.MetadataValue)]

    /// Flattens `event` as seen by a handler holding `metadata` and `provider`, at `date`.
    init(event: LogEvent, metadata: Logger.Metadata, provider: Logger.MetadataProvider?, date: Date) {
        var merged = metadata
        if let provided = provider?.get(), !provided.isEmpty { merged.merge(provided) { $1 } }
        if let explicit = event.metadata { merged.merge(explicit) { $1 } }
        if let error = event.error { merged["error"] = .string("\(error)") }
        timestamp = Timestamp.format(date)
        level = event.level
        message = Self.redacted(event.message.description)
        fields = merged.sorted { $0.key < $1.key }.map { key, value in
            (Self.reservedKeys.contains(key) ? "meta_" + key : key, Self.redacted(value))
        }
    }

    /// `text` with the value of every `apikey=` parameter replaced by `REDACTED`.
    static func redacted(_ text: String) -> String {
        guard text.range(of: "apikey=", options: .caseInsensitive) != nil else { return text }
        var out = ""
        var rest = Substring(text)
        while let found = rest.range(of: "apikey=", options: .caseInsensitive) {
            out += rest[..<found.upperBound]
            out += "REDACTED"
            rest = rest[found.upperBound...].drop { !"&#\"' \t\r\n".contains($0) }
        }
        return out + rest
    }

    /// `value` with every string in it redacted.
    static func redacted(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .string(let text): .string(redacted(text))
        case .stringConvertible(let convertible): .string(redacted(convertible.description))
        case .array(let values): .array(values.map { redacted($0) })
        case .dictionary(let values): .dictionary(values.mapValues { redacted($0) })
        }
    }
}
