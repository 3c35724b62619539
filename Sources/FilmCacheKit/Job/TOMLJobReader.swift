import Foundation
import TOMLKit

/// Reads a TOML job file into its top-level entries.
///
/// TOMLKit reports positions for syntax errors only, so each key's line comes from
/// ``TOMLKeyLines``, which scans the text for where each top-level key is defined.
enum TOMLJobReader {
    /// The entries of `text`, in line order.
    static func entries(_ text: String, path: String) throws(JobFileError) -> [JobEntry] {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw JobFileError(path: path, line: error.source.begin.line, "not valid TOML: \(error.description)")
        } catch {
            throw JobFileError(path: path, line: nil, "not valid TOML: \(error)")
        }
        let lines = TOMLKeyLines(text)
        return table.keys.map { key in
            JobEntry(key: key, value: value(table[key]), line: lines.line(of: key) ?? 1)
        }.sorted { ($0.line, $0.key) < ($1.line, $1.key) }
    }

    /// A TOMLKit value as a ``JobValue``.
    private static func value(_ node: (any TOMLValueConvertible)?) -> JobValue {
        guard let node else { return .other("missing value") }
        switch node.type {
        case .string: return .string(node.string ?? "")
        case .int: return .integer(node.int ?? 0)
        case .double: return .float(node.double ?? 0)
        case .bool: return .bool(node.bool ?? false)
        case .array: return .array(node.array.map { $0.map { value($0) } } ?? [])
        case .table:
            guard let table = node.table else { return .table([:]) }
            return .table(Dictionary(uniqueKeysWithValues: table.keys.map { ($0, value(table[$0])) }))
        case .date: return .other("date")
        case .time: return .other("time")
        case .dateTime: return .other("date-time")
        }
    }
}
