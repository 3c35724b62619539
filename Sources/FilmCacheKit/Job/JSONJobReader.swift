import Foundation

/// Reads a JSON job file (one object) into its top-level entries.
///
/// Foundation's decoder keeps no positions, so each key's line is found by looking for
/// `"key":` in the text; a key spelled with escapes is reported on line 1.
enum JSONJobReader {
    /// The entries of `text`, in line order.
    static func entries(_ text: String, path: String) throws(JobFileError) -> [JobEntry] {
        let decoded: DecodedValue
        do {
            decoded = try JSONDecoder().decode(DecodedValue.self, from: Data(text.utf8))
        } catch {
            throw JobFileError(path: path, issues: [syntaxError(in: text)])
        }
        guard case .table(let object) = decoded.value else {
            throw JobFileError(path: path, line: 1, "a JSON job file is one object, found \(decoded.value.typeName)")
        }
        return object.map { key, value in JobEntry(key: key, value: value, line: line(of: key, in: text)) }
            .sorted { ($0.line, $0.key) < ($1.line, $1.key) }
    }

    /// The line of the first `"key"` followed by a colon.
    private static func line(of key: String, in text: String) -> Int {
        let pattern = "\"" + NSRegularExpression.escapedPattern(for: key) + "\"\\s*:"
        guard let range = text.range(of: pattern, options: .regularExpression) else { return 1 }
        return text[..<range.lowerBound].utf8.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }

    /// Where and why `text` is not JSON, from `JSONSerialization`, which names the character offset.
    private static func syntaxError(in text: String) -> JobFileError.Issue {
        let data = Data(text.utf8)
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return JobFileError.Issue(line: nil, message: "not valid JSON")
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            var line: Int?
            if let range = detail.range(of: #"character [0-9]+"#, options: .regularExpression),
                let offset = Int(detail[range].dropFirst("character ".count))
            {
                line = data.prefix(offset).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            }
            return JobFileError.Issue(line: line, message: "not valid JSON: \(detail)")
        }
    }

    /// Any JSON value, decoded as a ``JobValue``.
    private struct DecodedValue: Decodable {
        let value: JobValue

        init(from decoder: any Decoder) throws {
            if var array = try? decoder.unkeyedContainer() {
                var values: [JobValue] = []
                while !array.isAtEnd { values.append(try array.decode(DecodedValue.self).value) }
                value = .array(values)
            } else if let object = try? decoder.container(keyedBy: AnyKey.self) {
                var values: [String: JobValue] = [:]
                for key in object.allKeys {
                    values[key.stringValue] = try object.decode(DecodedValue.self, forKey: key).value
                }
                value = .table(values)
            } else {
                let single = try decoder.singleValueContainer()
                if let bool = try? single.decode(Bool.self) {
                    value = .bool(bool)
                } else if let integer = try? single.decode(Int.self) {
                    value = .integer(integer)
                } else if let number = try? single.decode(Double.self) {
                    value = .float(number)
                } else if let string = try? single.decode(String.self) {
                    value = .string(string)
                } else if single.decodeNil() {
                    value = .other("null")
                } else {
                    value = .other("number too large")
                }
            }
        }
    }

    /// Any object key.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
