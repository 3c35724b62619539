import Foundation

/// The one JSON form of every report's `--json`: pretty-printed, keys sorted, slashes left alone.
enum ReportJSON {
    /// `value` encoded; `{}` if encoding fails, which only a non-finite number could cause.
    static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// An instant in the database's form, `2026-11-21T02:54:22Z`.
    static func instant(_ date: Date?) -> String? {
        date.map(Timestamp.format)
    }
}
