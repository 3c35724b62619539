/// Builds compact JSON text with keys in the order they are added, the way OMDb writes its bodies.
///
/// Only strings, arrays of string objects and nested objects are needed: every OMDb value is a
/// string. Non-ASCII characters are written as raw UTF-8, as OMDb does.
package struct CompactJSON: Sendable {
    /// The JSON text written so far.
    public private(set) var text = "{"
    private var isFirst = true

    /// Creates an empty object builder.
    public init() {}

    /// Appends `"key":"value"` with both sides escaped.
    public mutating func add(_ key: String, _ value: String) {
        separate()
        text += Self.quoted(key) + ":" + Self.quoted(value)
    }

    /// Appends `"key":[{…},{…}]` where each element is an ordered list of string pairs.
    public mutating func add(_ key: String, objects: [[(String, String)]]) {
        separate()
        text += Self.quoted(key) + ":["
        for (offset, object) in objects.enumerated() {
            if offset > 0 { text += "," }
            var nested = CompactJSON()
            for (name, value) in object { nested.add(name, value) }
            text += nested.finished()
        }
        text += "]"
    }

    /// Returns the closed object.
    public func finished() -> String {
        text + "}"
    }

    private mutating func separate() {
        if isFirst { isFirst = false } else { text += "," }
    }

    /// Returns `value` as a JSON string literal, escaping quotes, backslashes and control characters.
    public static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
