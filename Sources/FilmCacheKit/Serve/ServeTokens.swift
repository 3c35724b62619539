import Foundation

/// The client tokens `filmcache serve` accepts as `apikey`: never the OMDb key.
///
/// The file holds one token a line; blank lines and lines starting with `#` are skipped, and
/// `# …` after a token is a comment (the app it is for, say). A token is 8 to 256 printable
/// ASCII characters with no space, `#` or `&`. Messages name the file and line, never the token.
public struct ServeTokens: Sendable {
    private let tokens: Set<String>

    /// The tokens of `text`, read from `file` (the name messages give).
    public init(text: String, file: String) throws(ServeTokensError) {
        var tokens: Set<String> = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let token = line.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            guard !token.isEmpty else { continue }
            guard token.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) && $0 != "&" }) else {
                throw .badToken(
                    file: file, line: index + 1,
                    why: "a token is one word of printable ASCII characters, without spaces or &")
            }
            guard (8...256).contains(token.count) else {
                throw .badToken(file: file, line: index + 1, why: "a token is 8 to 256 characters long")
            }
            tokens.insert(token)
        }
        guard !tokens.isEmpty else { throw .empty(file: file) }
        self.tokens = tokens
    }

    /// The tokens of the file at `path`.
    public static func load(path: String) throws(ServeTokensError) -> ServeTokens {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(file: path, reason: FileReadFailure.reason(error))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .badToken(file: path, line: 1, why: "the file is not UTF-8 text")
        }
        return try ServeTokens(text: text, file: path)
    }

    /// Whether `token` is listed.
    public func accepts(_ token: String) -> Bool { tokens.contains(token) }

    /// How many tokens are listed.
    public var count: Int { tokens.count }
}

/// Why a tokens file cannot be used.
public enum ServeTokensError: Error, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case badToken(file: String, line: Int, why: String)
    case empty(file: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "cannot read the tokens file \(file): \(reason)"
        case .badToken(let file, let line, let why): "\(file):\(line): \(why)"
        case .empty(let file): "\(file) lists no token: every request would be refused"
        }
    }
}
