import Foundation

/// TMDb's credential, which never prints itself: a v4 read access token (sent as
/// `Authorization: Bearer …`) or a v3 API key (32 hex digits, sent as `api_key`).
public struct TMDbToken: Sendable, Equatable, CustomStringConvertible {
    /// The token text; only the request builder reads it.
    let secret: String

    /// Wraps `secret`, trimmed of surrounding whitespace; `nil` when empty or when it holds a
    /// character no header may carry.
    public init?(_ secret: String) {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        self.secret = trimmed
    }

    /// Whether the token is a v3 API key (32 hex digits), which TMDb takes only as `api_key`.
    var isVersion3Key: Bool {
        secret.utf8.count == 32 && secret.utf8.allSatisfy { isxdigit(Int32($0)) != 0 }
    }

    /// What finds the token echoed in an upstream's answer.
    var echo: SecretEcho { SecretEcho(secret) }

    /// Whether `bytes` hold the token in any spelling.
    package func isEchoed(in bytes: [UInt8]) -> Bool { echo.isEchoed(in: bytes) }

    /// `text` with the token masked.
    package func redacting(_ text: String) -> String { echo.redacting(text, replacement: SecretEcho.withheld) }

    public var description: String { "tmdb-token:(\(secret.utf8.count) characters)" }

    /// Reads the token from `file` when given, else from the environment variable `name`.
    public static func load(environment: [String: String], variable name: String = "TMDB_API_TOKEN", file: String?)
        throws(TMDbConfigurationError) -> TMDbToken
    {
        if let file {
            let text: String
            do {
                text = try String(contentsOfFile: file, encoding: .utf8)
            } catch {
                throw .unreadableTokenFile(path: file, reason: "\(error.localizedDescription)")
            }
            guard let token = TMDbToken(text) else {
                throw .unreadableTokenFile(path: file, reason: "the file holds no token")
            }
            return token
        }
        guard let value = environment[name], let token = TMDbToken(value) else { throw .missingToken(variable: name) }
        return token
    }
}

/// A TMDb setting that stops filmcache before it does any work.
public enum TMDbConfigurationError: Error, Equatable, CustomStringConvertible {
    case missingToken(variable: String)
    case unreadableTokenFile(path: String, reason: String)
    case badBaseURL(String)

    public var description: String {
        switch self {
        case .missingToken(let variable):
            "no TMDb token: set \(variable), pass --tmdb-token-file FILE, or name tmdb_token_file in the job file"
        case .unreadableTokenFile(let path, let reason):
            "cannot read the TMDb token file \(path): \(reason)"
        case .badBaseURL(let url):
            "--tmdb-base-url \(url): not an http or https URL"
        }
    }
}

/// Where TMDb is asked and how a request carries the token.
public struct TMDbEndpoint: Sendable {
    /// The API's base without a trailing slash: `https://api.themoviedb.org/3`.
    public let baseURL: String
    public let token: TMDbToken

    public static let defaultBaseURL = "https://api.themoviedb.org/3"

    public init(baseURL: String = TMDbEndpoint.defaultBaseURL, token: TMDbToken) throws(TMDbConfigurationError) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        let lower = base.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), base.count > 8,
            !base.contains(where: { $0 == " " || $0 == "?" || $0 == "#" })
        else { throw .badBaseURL(baseURL) }
        self.baseURL = base
        self.token = token
    }

    /// A GET of `path` (below the base, with its leading slash) with `query` (names and values,
    /// percent-encoded here), carrying the token.
    public func request(_ path: String, query: [(String, String)] = []) -> HTTPRequest {
        var items = query
        var headers = ["Accept: application/json"]
        if token.isVersion3Key {
            items.append(("api_key", token.secret))
        } else {
            headers.append("Authorization: Bearer \(token.secret)")
        }
        var url = baseURL + path
        if !items.isEmpty {
            url += "?" + items.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        }
        return HTTPRequest(url: url, headers: headers)
    }

    /// `text` percent-encoded for a query: every byte but ASCII letters, digits, `-._~` and `,`
    /// (`Amélie` is `Am%C3%A9lie`), so no URL carries a raw non-ASCII byte or a space.
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: ","):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// The parts a warm appends to an entry's details, so one call brings them all.
    public static let appendedParts = "external_ids,images,credits,release_dates"
}
