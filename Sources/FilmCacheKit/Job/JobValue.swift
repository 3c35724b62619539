/// One value of a job file, whichever syntax it was written in (TOML or JSON).
enum JobValue: Sendable, Equatable {
    /// A string.
    case string(String)
    /// A whole number.
    case integer(Int)
    /// A number with a fraction or an exponent.
    case float(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// An array of values.
    case array([JobValue])
    /// A table (TOML) or an object (JSON).
    case table([String: JobValue])
    /// A TOML value no job key takes (a date or time); carries its type's name.
    case other(String)

    /// How an error message names this value's type.
    var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a floating-point number"
        case .bool: "a boolean"
        case .array: "an array"
        case .table: "a table"
        case .other(let name): name == "null" ? "null" : "a \(name)"
        }
    }
}

/// One top-level key of a job file with its value and the line it is written on.
struct JobEntry: Sendable, Equatable {
    /// The key as written.
    var key: String
    /// Its value.
    var value: JobValue
    /// The 1-based line the key is on.
    var line: Int

    /// Creates an entry.
    init(key: String, value: JobValue, line: Int) {
        self.key = key
        self.value = value
        self.line = line
    }
}
