import Foundation

/// Reads one job file entry as the type its key takes, or says on which line it went wrong.
///
/// Every string is first expanded (``EnvironmentExpansion``); paths are then resolved against
/// the job file's directory. Messages name the key and the expected type, never the value.
struct JobValueReader {
    /// The entry being read.
    let entry: JobEntry
    /// The job file's directory, absolute.
    let directory: String
    /// The variables `${NAME}` is replaced from.
    let environment: [String: String]

    private var key: String { entry.key }

    /// An issue on this entry's line.
    func issue(_ message: String) -> JobFileError.Issue {
        JobFileError.Issue(line: entry.line, message: "\(key): \(message)")
    }

    private func mismatch(_ expected: String) -> JobFileError.Issue {
        issue("expected \(expected), found \(entry.value.typeName)")
    }

    /// A number, whole or not, within `key`'s range.
    func number(in key: JobKey, expected: String = "a number") throws(JobFileError.Issue) -> Double {
        let value: Double
        switch entry.value {
        case .integer(let integer): value = Double(integer)
        case .float(let float): value = float
        default: throw mismatch(expected)
        }
        try check(value, in: key)
        return value
    }

    /// A whole number within `key`'s range.
    func integer(in key: JobKey) throws(JobFileError.Issue) -> Int {
        guard case .integer(let value) = entry.value else { throw mismatch("an integer") }
        try check(Double(value), in: key)
        return value
    }

    private func check(_ value: Double, in key: JobKey) throws(JobFileError.Issue) {
        guard let range = key.range, !range.contains(value) else { return }
        throw issue(range.requirement)
    }

    /// A string, `${…}` expanded.
    func string() throws(JobFileError.Issue) -> String {
        guard case .string(let text) = entry.value else { throw mismatch("a string") }
        return try expanded(text)
    }

    /// A non-empty path, `${…}` expanded and made absolute against the job file's directory.
    func path() throws(JobFileError.Issue) -> String {
        try resolved(string())
    }

    /// An array of paths (a single string is taken as a list of one), at least one.
    func paths() throws(JobFileError.Issue) -> [String] {
        let texts = try strings()
        guard !texts.isEmpty else { throw issue("name at least one file") }
        var paths: [String] = []
        for text in texts { paths.append(try resolved(expanded(text))) }
        return paths
    }

    /// An array of host names or addresses (a single string is taken as a list of one), `${…}`
    /// expanded and normalized (``DestinationPolicy/allowedHost(_:)``); an empty array is none.
    func hosts() throws(JobFileError.Issue) -> [String] {
        var hosts: [String] = []
        for text in try strings() {
            switch DestinationPolicy.allowedHost(try expanded(text)) {
            case .success(let host): hosts.append(host)
            case .failure(let error): throw issue(error.description)
            }
        }
        return hosts
    }

    /// Names from `choices`, each once, at least one; a single string is a list of one.
    func choices(_ choices: [String]) throws(JobFileError.Issue) -> [String] {
        var names: [String] = []
        for text in try strings() {
            let name = text.lowercased()
            guard choices.contains(name) else {
                throw issue("\"\(text)\" is not one of \(choices.joined(separator: ", "))")
            }
            if !names.contains(name) { names.append(name) }
        }
        guard !names.isEmpty else { throw issue("expected at least one of \(choices.joined(separator: ", "))") }
        return names
    }

    /// An array of strings, as written; a single string is taken as a list of one.
    private func strings() throws(JobFileError.Issue) -> [String] {
        let texts: [String]
        switch entry.value {
        case .string(let text): texts = [text]
        case .array(let values):
            var strings: [String] = []
            for value in values {
                guard case .string(let text) = value else {
                    throw issue("expected an array of strings, found \(value.typeName) in it")
                }
                strings.append(text)
            }
            texts = strings
        default: throw mismatch("an array of strings")
        }
        return texts
    }

    /// A duration within `key`'s range (in seconds): seconds as a number, or text such as `"45m"` or `"1h30m"`.
    func duration(in key: JobKey) throws(JobFileError.Issue) -> Duration {
        switch entry.value {
        case .integer, .float: return .seconds(try number(in: key))
        case .string(let text):
            guard let parsed = Duration(parsing: try expanded(text)) else {
                throw issue("expected seconds or a duration such as \"90s\", \"45m\", \"2h\"")
            }
            try check(parsed.inSeconds, in: key)
            return parsed
        default: throw mismatch("seconds or a duration string")
        }
    }

    /// One of `choices`.
    func choice(_ choices: [String]) throws(JobFileError.Issue) -> String {
        let value = try string()
        guard choices.contains(value) else { throw issue("must be one of \(choices.joined(separator: ", "))") }
        return value
    }

    /// A time zone identifier such as `UTC` or `America/Los_Angeles`.
    func timeZone() throws(JobFileError.Issue) -> QuotaZone {
        guard let zone = QuotaZone(identifier: try string()) else {
            throw issue("unknown time zone (use an identifier such as UTC or America/Los_Angeles)")
        }
        return zone
    }

    /// The name of an environment variable, refusing what looks like a key itself.
    func variableName() throws(JobFileError.Issue) -> String {
        guard case .string(let name) = entry.value else { throw mismatch("the name of an environment variable") }
        guard EnvironmentExpansion.isVariableName(name) else {
            throw issue("expected the name of an environment variable (letters, digits and _), such as OMDB_API_KEY")
        }
        guard !(name.count == 8 && name.allSatisfy(\.isHexDigit)) else {
            throw issue("this looks like an API key itself; name the variable that holds it, such as OMDB_API_KEY")
        }
        return name
    }

    private func expanded(_ text: String) throws(JobFileError.Issue) -> String {
        do {
            return try EnvironmentExpansion.expand(text, environment: environment)
        } catch .unset(let name) {
            throw issue("${\(name)} is not set (write ${\(name):-fallback} to give a default)")
        } catch {
            throw issue("malformed ${…}: write ${NAME} or ${NAME:-fallback}")
        }
    }

    private func resolved(_ path: String) throws(JobFileError.Issue) -> String {
        guard !path.isEmpty else { throw issue("the path is empty") }
        let absolute = path.hasPrefix("/") ? path : directory + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }
}
