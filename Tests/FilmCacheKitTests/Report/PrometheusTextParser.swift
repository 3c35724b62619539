import Foundation

/// A strict reader of the Prometheus text exposition format (0.0.4), to check what filmcache writes.
///
/// It follows the rules of Prometheus' own parser (`expfmt`) and adds the checks `promtool check
/// metrics` makes that matter here: HELP and TYPE at most once per family and before its samples,
/// a family's lines together, metric and label names by the grammar, only `\\`, `\"` and `\n`
/// escapes, values as Go's `ParseFloat` reads them (`NaN`, `+Inf`, `-Inf` included), optional
/// integer timestamps, no series twice, counters named `_total` and never negative.
struct PrometheusTextParser {
    /// One metric family as read.
    struct Family: Equatable {
        /// The family's name (for a histogram or summary, without the part suffixes).
        var name: String
        /// The HELP text, unescaped; `nil` without a HELP line.
        var help: String?
        /// The TYPE, `untyped` without a TYPE line.
        var type: String = "untyped"
        /// The samples, in order.
        var samples: [Sample] = []
    }

    /// One sample line as read.
    struct Sample: Equatable {
        /// The sample's metric name.
        var name: String
        /// Labels, values unescaped.
        var labels: [String: String]
        /// The value.
        var value: Double
        /// The optional timestamp in milliseconds.
        var timestamp: Int64?

        /// Equal samples, NaN equal to NaN.
        static func == (a: Sample, b: Sample) -> Bool {
            a.name == b.name && a.labels == b.labels && a.timestamp == b.timestamp
                && (a.value == b.value || (a.value.isNaN && b.value.isNaN))
        }
    }

    /// Why the text is not valid, and where.
    struct ParseError: Error, CustomStringConvertible, Equatable {
        /// The 1-based line.
        var line: Int
        /// The rule broken.
        var message: String
        /// `line N: message`.
        var description: String { "line \(line): \(message)" }
    }

    /// The metric types the format knows.
    static let types: Set<String> = ["counter", "gauge", "histogram", "summary", "untyped"]

    /// The families of `text`, in order; throws on the first rule broken.
    static func parse(_ text: String) throws(ParseError) -> [Family] {
        var families: [Family] = []
        var index: [String: Int] = [:]
        var closed: Set<String> = []
        var series: Set<String> = []
        var typed: Set<String> = []
        var current: String?

        func family(_ name: String, line: Int) throws(ParseError) -> Int {
            if current != name {
                if let current { closed.insert(current) }
                if closed.contains(name) {
                    throw ParseError(line: line, message: "lines of \(name) are not together")
                }
                current = name
            }
            if let i = index[name] { return i }
            families.append(Family(name: name))
            index[name] = families.count - 1
            return families.count - 1
        }

        if !text.isEmpty && !text.hasSuffix("\n") {
            throw ParseError(line: text.split(separator: "\n").count, message: "the last line has no newline")
        }
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            let number = offset + 1
            var line = Substring(raw)
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            if line.hasPrefix("#") {
                line = line.dropFirst()
                var words = Scanner(line, line: number)
                words.skipBlanks()
                let keyword = words.word()
                guard keyword == "HELP" || keyword == "TYPE" else { continue }  // any other comment
                words.skipBlanks()
                let name = words.word()
                guard isMetricName(name) else { throw ParseError(line: number, message: "bad metric name '\(name)'") }
                let i = try family(name, line: number)
                if keyword == "HELP" {
                    guard families[i].help == nil else {
                        throw ParseError(line: number, message: "second HELP for \(name)")
                    }
                    words.skipOneBlank()
                    families[i].help = try words.escaped(until: nil, allowQuote: false)
                } else {
                    guard families[i].samples.isEmpty else {
                        throw ParseError(line: number, message: "TYPE of \(name) after its samples")
                    }
                    guard typed.insert(name).inserted else {
                        throw ParseError(line: number, message: "second TYPE for \(name)")
                    }
                    words.skipBlanks()
                    let type = words.word()
                    guard types.contains(type) else {
                        throw ParseError(line: number, message: "unknown type '\(type)'")
                    }
                    words.skipBlanks()
                    guard words.atEnd else { throw ParseError(line: number, message: "text after the TYPE") }
                    families[i].type = type
                }
                continue
            }
            var scanner = Scanner(line, line: number)
            scanner.skipBlanks()
            let name = scanner.word(stoppingAt: "{")
            guard isMetricName(name) else { throw ParseError(line: number, message: "bad metric name '\(name)'") }
            var labels: [String: String] = [:]
            if scanner.take("{") {
                while true {
                    scanner.skipBlanks()
                    if scanner.take("}") { break }
                    let label = scanner.word(stoppingAt: "=")
                    guard isLabelName(label) else {
                        throw ParseError(line: number, message: "bad label name '\(label)'")
                    }
                    scanner.skipBlanks()
                    guard scanner.take("="),
                        {
                            scanner.skipBlanks(); return scanner.take("\"")
                        }()
                    else {
                        throw ParseError(line: number, message: "label \(label) has no quoted value")
                    }
                    let value = try scanner.escaped(until: "\"", allowQuote: true)
                    guard labels.updateValue(value, forKey: label) == nil else {
                        throw ParseError(line: number, message: "label \(label) twice")
                    }
                    scanner.skipBlanks()
                    if scanner.take(",") { continue }
                    guard scanner.take("}") else { throw ParseError(line: number, message: "labels not closed") }
                    break
                }
            }
            guard scanner.skipBlanks() > 0 else { throw ParseError(line: number, message: "no blank before the value") }
            let valueText = scanner.word()
            guard let value = parseValue(valueText) else {
                throw ParseError(line: number, message: "bad value '\(valueText)'")
            }
            var timestamp: Int64?
            if scanner.skipBlanks() > 0, !scanner.atEnd {
                let text = scanner.word()
                guard let stamp = Int64(text) else {
                    throw ParseError(line: number, message: "bad timestamp '\(text)'")
                }
                timestamp = stamp
                scanner.skipBlanks()
            }
            guard scanner.atEnd else { throw ParseError(line: number, message: "text after the sample") }

            let familyName = familyName(of: name, in: families, index: index)
            let i = try family(familyName, line: number)
            let type = families[i].type
            guard name == familyName || ["histogram", "summary"].contains(type) else {
                throw ParseError(line: number, message: "\(name) is not a sample name of the \(type) \(familyName)")
            }
            let key =
                name + "{"
                + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.debugDescription)" }
                .joined(separator: ",") + "}"
            guard series.insert(key).inserted else { throw ParseError(line: number, message: "series \(key) twice") }
            if type == "counter" {
                guard name.hasSuffix("_total") else {
                    throw ParseError(line: number, message: "counter \(name) is not named _total")
                }
                guard value >= 0 || value.isNaN else {
                    throw ParseError(line: number, message: "counter \(name) is negative")
                }
            } else if name.hasSuffix("_total") {
                throw ParseError(line: number, message: "\(type) \(name) is named like a counter")
            }
            families[i].samples.append(Sample(name: name, labels: labels, value: value, timestamp: timestamp))
        }
        return families
    }

    /// The family a sample name belongs to: the name itself, or the stem of a histogram's or summary's part.
    private static func familyName(of name: String, in families: [Family], index: [String: Int]) -> String {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let stem = String(name.dropLast(suffix.count))
            if let i = index[stem], ["histogram", "summary"].contains(families[i].type) { return stem }
        }
        return name
    }

    /// A value as Go's `strconv.ParseFloat` reads it, as Prometheus does.
    static func parseValue(_ text: String) -> Double? {
        switch text.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default:
            guard
                text.range(of: #"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"#, options: .regularExpression)
                    != nil
            else { return nil }
            return Double(text)
        }
    }

    /// Whether `name` follows the metric name grammar, `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func isMetricName(_ name: String) -> Bool {
        name.range(of: #"^[a-zA-Z_:][a-zA-Z0-9_:]*$"#, options: .regularExpression) != nil
    }

    /// Whether `name` follows the label name grammar, `[a-zA-Z_][a-zA-Z0-9_]*`, and is not reserved (`__…`).
    static func isLabelName(_ name: String) -> Bool {
        name.range(of: #"^[a-zA-Z_][a-zA-Z0-9_]*$"#, options: .regularExpression) != nil && !name.hasPrefix("__")
    }

    /// Walks one line.
    private struct Scanner {
        /// What is left of the line.
        var text: Substring
        /// The line's number, for errors.
        let line: Int

        /// A scanner at the start of `text`.
        init(_ text: Substring, line: Int) {
            self.text = text
            self.line = line
        }

        /// Whether the line is used up.
        var atEnd: Bool { text.isEmpty }

        /// Skips spaces and tabs; returns how many.
        @discardableResult
        mutating func skipBlanks() -> Int {
            let count = text.prefix { $0 == " " || $0 == "\t" }.count
            text = text.dropFirst(count)
            return count
        }

        /// Skips the one blank that separates HELP's name from its text.
        mutating func skipOneBlank() {
            if text.first == " " || text.first == "\t" { text = text.dropFirst() }
        }

        /// The characters up to a blank, `stop`, or the end.
        mutating func word(stoppingAt stop: Character? = nil) -> String {
            let word = text.prefix { $0 != " " && $0 != "\t" && $0 != stop }
            text = text.dropFirst(word.count)
            return String(word)
        }

        /// Consumes `character` if it comes next.
        mutating func take(_ character: Character) -> Bool {
            guard text.first == character else { return false }
            text = text.dropFirst()
            return true
        }

        /// Text up to `end` (consumed) or the line's end, with `\\`, `\n` and (if allowed) `\"` unescaped.
        mutating func escaped(until end: Character?, allowQuote: Bool) throws(ParseError) -> String {
            var out = ""
            while let c = text.first {
                text = text.dropFirst()
                if c == end { return out }
                guard c == "\\" else {
                    out.append(c)
                    continue
                }
                switch text.first {
                case "\\"?: out.append("\\")
                case "n"?: out.append("\n")
                case "\""? where allowQuote: out.append("\"")
                default: throw ParseError(line: line, message: "bad escape \\\(text.first.map(String.init) ?? "")")
                }
                text = text.dropFirst()
            }
            if end != nil { throw ParseError(line: line, message: "unterminated label value") }
            return out
        }
    }
}
