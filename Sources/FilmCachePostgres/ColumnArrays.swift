import Foundation
import PostgresNIO

/// Rows sent as one array per column, so one statement writes a whole batch:
/// `INSERT … SELECT u.a::integer, … FROM unnest($1::text[], $2::text[], …) AS u(a, b, …)`.
///
/// Every column travels as a `text[]` in PostgreSQL's binary array form, NULLs included (which
/// postgres-nio's own arrays cannot carry), and the statement casts each value to its column's
/// type. Binary, the server reads each array once; as array text it would parse it twice, once
/// more when planning (to estimate the rows `unnest` returns).
struct ColumnArrays {
    /// Each column's elements so far, each a length (-1: NULL) and its bytes.
    private var columns: [TextArray]
    /// Rows appended.
    private(set) var count = 0

    /// Empty arrays for `columns` columns.
    init(columns: Int) {
        self.columns = Array(repeating: TextArray(), count: columns)
    }

    /// Appends one row: a value (its text; `nil` for NULL) for each column, in column order.
    mutating func append(_ values: [String?]) {
        precondition(values.count == columns.count, "one value per column")
        for (index, value) in values.enumerated() { columns[index].append(value) }
        count += 1
    }

    /// The arrays, bound as `$1 … $n`.
    var binds: PostgresBindings {
        var binds = PostgresBindings(capacity: columns.count)
        for column in columns { binds.append(column) }
        return binds
    }

    /// `unnest($first::text[], …)` over `columns` arrays bound from `$first` on, named `u(names…)`.
    static func unnest(_ names: [String], from first: Int = 1) -> String {
        let arrays = names.indices.map { "$\(first + $0)::text[]" }.joined(separator: ", ")
        return "unnest(\(arrays)) AS u(\(names.joined(separator: ", ")))"
    }

    /// The text of an instant as the arrays carry it: whole seconds since 1970, read back with
    /// `to_timestamp(u.x::double precision)` (the second the cache keeps; see `Date.wholeSecond`).
    static func seconds(_ date: Date?) -> String? {
        date.map { String(Int64($0.timeIntervalSince1970.rounded(.down))) }
    }
}

/// A one-dimensional `text[]` that may hold NULLs, encoded in PostgreSQL's binary array form.
struct TextArray: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { .textArray }
    static var psqlFormat: PostgresFormat { .binary }

    /// The elements: each an `Int32` length (-1 for NULL) and its UTF-8 bytes.
    private var elements = ByteBuffer()
    private var count: Int32 = 0
    private var hasNull = false

    /// Appends `value`, or NULL.
    mutating func append(_ value: String?) {
        count += 1
        guard let value else {
            hasNull = true
            elements.writeInteger(-1, as: Int32.self)
            return
        }
        let lengthAt = elements.writerIndex
        elements.writeInteger(0, as: Int32.self)
        let length = elements.writeString(value)
        elements.setInteger(Int32(length), at: lengthAt)
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        // Dimensions, whether any element is NULL, the element type; then per dimension its size and lower bound.
        byteBuffer.writeInteger(count == 0 ? 0 : 1, as: Int32.self)
        byteBuffer.writeInteger(hasNull ? 1 : 0, as: Int32.self)
        byteBuffer.writeInteger(PostgresDataType.text.rawValue, as: UInt32.self)
        guard count > 0 else { return }
        byteBuffer.writeInteger(count, as: Int32.self)
        byteBuffer.writeInteger(1, as: Int32.self)
        var elements = elements
        byteBuffer.writeBuffer(&elements)
    }
}

extension Array {
    /// The elements in rounds where no key repeats: an element goes into the round after the one
    /// holding its key's previous element. Applied round after round, one set-based statement each,
    /// they leave what one statement per element in order left (the same key twice in a batch).
    func rounds<Key: Hashable>(by key: (Element) -> Key) -> [[Element]] {
        var rounds: [[Element]] = []
        var seen: [Key: Int] = [:]
        seen.reserveCapacity(count)
        for element in self {
            let round = seen[key(element), default: 0]
            seen[key(element)] = round + 1
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(element)
        }
        return rounds
    }
}
