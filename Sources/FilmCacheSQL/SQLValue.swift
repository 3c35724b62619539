/// A value bound to a statement parameter.
package enum SQLValue {
    case null
    case integer(Int)
    case real(Double)
    case text(String)
    /// Bytes as they are (a BLOB; `bytea` on PostgreSQL).
    case blob([UInt8])

    /// `.text` or `.null`.
    package static func optional(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    /// `.integer` or `.null`.
    package static func optional(_ value: Int?) -> SQLValue { value.map { .integer($0) } ?? .null }
    /// `.real` or `.null`.
    package static func optional(_ value: Double?) -> SQLValue { value.map { .real($0) } ?? .null }
}
