/// A JSON value with its object keys in the order they were given, rendered compactly and the same
/// way every time, so one resource answers with the same bytes on every request.
///
/// TMDb's bodies hold numbers, booleans and nulls beside strings, which ``CompactJSON`` does not write.
indirect enum TMDbJSON: Sendable, Equatable {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A number with a fractional part, written with at most three decimals (`7.8`, `49.088`).
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An array.
    case array([TMDbJSON])
    /// An object, its keys in this order.
    case object([(String, TMDbJSON)])

    /// `.string(text)`, or `.null` when `text` is nil.
    static func string(orNull text: String?) -> TMDbJSON {
        text.map(TMDbJSON.string) ?? .null
    }

    /// The compact JSON text.
    func rendered() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    /// The compact JSON text as UTF-8 bytes.
    var bytes: [UInt8] { Array(rendered().utf8) }

    /// The value under `key` of an object, nil for other values or a missing key.
    subscript(key: String) -> TMDbJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// An object with `members` appended (a key already present is replaced where it stands).
    func adding(_ members: [(String, TMDbJSON)]) -> TMDbJSON {
        guard case .object(var existing) = self else { return self }
        for (key, value) in members {
            if let index = existing.firstIndex(where: { $0.0 == key }) {
                existing[index].1 = value
            } else {
                existing.append((key, value))
            }
        }
        return .object(existing)
    }

    private func write(to out: inout String) {
        switch self {
        case .string(let text): out += CompactJSON.quoted(text)
        case .int(let number): out += String(number)
        case .double(let number): out += Self.decimal(number)
        case .bool(let flag): out += flag ? "true" : "false"
        case .null: out += "null"
        case .array(let elements):
            out += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (offset, (key, value)) in members.enumerated() {
                if offset > 0 { out += "," }
                out += CompactJSON.quoted(key) + ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// `number` rounded to thousandths and written as a JSON number that always reads back as a
    /// fraction (`8.0`, not `8`), as TMDb writes its averages and popularity.
    private static func decimal(_ number: Double) -> String {
        guard number.isFinite else { return "0.0" }
        let thousandths = Int((number * 1000).rounded())
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = abs(thousandths)
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.count > 1 && fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(magnitude / 1000).\(fraction)"
    }

    static func == (lhs: TMDbJSON, rhs: TMDbJSON) -> Bool {
        lhs.rendered() == rhs.rendered()
    }
}
