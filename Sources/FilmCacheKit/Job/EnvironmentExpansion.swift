/// `${NAME}` and `${NAME:-fallback}` in job file strings, replaced from the environment.
///
/// This lets one job file serve cron and systemd: under systemd `LoadCredential=` puts the key
/// in `$CREDENTIALS_DIRECTORY`, and `"${CREDENTIALS_DIRECTORY:-/etc/filmcache}/omdb.key"` finds
/// it there or, under cron, in `/etc/filmcache`. A `$` not followed by `{` is kept as written.
enum EnvironmentExpansion {
    /// Why a string could not be expanded.
    enum Failure: Error, Equatable {
        /// `${NAME}` names a variable that is not set.
        case unset(String)
        /// `${` without its `}`, or an empty or malformed name.
        case malformed
    }

    /// `text` with every `${…}` replaced.
    static func expand(_ text: String, environment: [String: String]) throws(Failure) -> String {
        guard text.contains("${") else { return text }
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else { throw .malformed }
            let body = rest[start.upperBound..<end]
            let parts = body.split(separator: ":-", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard isVariableName(name) else { throw .malformed }
            if parts.count == 2 {
                let value = environment[name] ?? ""
                result += value.isEmpty ? String(parts[1]) : value
            } else {
                guard let value = environment[name] else { throw .unset(name) }
                result += value
            }
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    /// Whether `name` is a portable environment variable name: a letter or `_`, then letters, digits or `_`.
    static func isVariableName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, !isDigit(first) else { return false }
        return bytes.allSatisfy { $0 == UInt8(ascii: "_") || isDigit($0) || isLetter($0) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }
}
