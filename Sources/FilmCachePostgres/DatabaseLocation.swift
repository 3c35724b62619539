import FilmCacheKit
import Foundation

/// Where the cache database lives, as `--db` or a job file's `db` names it: a SQLite file's path, or a
/// PostgreSQL server.
///
/// A value starting `postgresql:` or `postgres:`, in any case (RFC 3986: a scheme is case-insensitive),
/// is a URL, `postgresql://USER@HOST[:PORT]/DBNAME` with an optional
/// `?sslmode=disable|prefer|require|verify-full`; a value starting with any other scheme and `//`
/// (`sqlite://`, `mysql://`) is refused; anything else is a path (`file:` URIs are then refused by
/// ``DatabaseName``). A URL never carries a
/// password: one that does is refused, and the password comes from a password file, `PGPASSWORD` or
/// `~/.pgpass` instead (``PostgresLocation/password(file:environment:warn:)``). No message shows a
/// password, whatever the scheme.
public enum DatabaseLocation: Sendable, Equatable {
    /// A SQLite file, the path as given.
    case sqlite(path: String)
    /// A PostgreSQL database.
    case postgres(PostgresLocation)

    /// Reads `value`; `environment` gives `USER` when the URL names no user.
    public init(parsing value: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(DatabaseLocationError)
    {
        let text = value.drop { $0.isWhitespace }
        guard let (scheme, rest) = DatabaseName.scheme(of: text) else {
            self = .sqlite(path: value)
            return
        }
        guard PostgresLocation.schemes.contains(scheme.lowercased()) else {
            // `file:` is SQLite's own URI form, refused as naming no single file (``DatabaseName``).
            // Another scheme with `//`, or with an `@` (`mysql:user:secret@host`), is a URL meant.
            guard rest.hasPrefix("//") || rest.contains("@"), scheme.lowercased() != "file" else {
                self = .sqlite(path: value)
                return
            }
            throw .unknownScheme(url: scheme + ":" + PostgresLocation.redacted(String(rest)))
        }
        guard rest.hasPrefix("//") else {
            throw .invalidURL(
                url: scheme + ":" + PostgresLocation.redacted(String(rest)), reason: "the scheme is not followed by //")
        }
        self = .postgres(try PostgresLocation(url: String(rest.dropFirst(2)), environment: environment))
    }

    /// The SQLite file's path; `nil` for a server.
    public var sqlitePath: String? {
        if case .sqlite(let path) = self { path } else { nil }
    }

    /// The database as messages name it: the path, or the URL (which holds no password).
    public var displayName: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let location): location.displayName
        }
    }
}

/// A PostgreSQL database named by a URL with no password in it.
public struct PostgresLocation: Sendable, Hashable {
    /// How the connection uses TLS, as libpq's `sslmode` says it.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, unverified; plain TCP otherwise (libpq's default).
        case prefer
        /// TLS, its certificate not verified.
        case require
        /// TLS, the certificate verified against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    /// The role to connect as.
    public var user: String
    /// The server's host name or address (an IPv6 address without its brackets).
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The database's name.
    public var database: String
    /// TLS use.
    public var sslMode: SSLMode

    /// The URL schemes that name a PostgreSQL database, lowercased.
    static var schemes: Set<String> { DatabaseName.serverSchemes }

    /// A location from its parts.
    public init(user: String, host: String, port: Int = 5432, database: String, sslMode: SSLMode = .prefer) {
        self.user = user
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
    }

    /// The URL every message uses: `postgresql://user@host:port/database`, `?sslmode=` when not `prefer`.
    public var displayName: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        let mode = sslMode == .prefer ? "" : "?sslmode=\(sslMode.rawValue)"
        return "postgresql://\(Self.encode(user))@\(host):\(port)/\(Self.encode(database))\(mode)"
    }

    /// Parses what follows the scheme: `[USER@]HOST[:PORT]/DBNAME[?sslmode=MODE]`.
    init(url rest: String, environment: [String: String]) throws(DatabaseLocationError) {
        let shown = "postgresql://" + Self.redacted(rest)
        var (path, query) = rest.splitOnce("?")
        var user: String?
        // The user ends at the last @ before the query: a password (refused) may hold / or @.
        if let at = path.lastIndex(of: "@") {
            let userInfo = String(path[..<at])
            path = String(path[path.index(after: at)...])
            guard !userInfo.contains(":") else { throw .passwordInURL(url: shown) }
            user = try Self.decode(userInfo, in: shown)
        }
        let (hostPort, databasePart) = path.splitOnce("/")
        let (host, portText) = try Self.hostAndPort(hostPort, in: shown)
        guard !host.isEmpty else { throw .invalidURL(url: shown, reason: "it names no host") }
        var port = 5432
        if let portText {
            guard let number = Int(portText), (1...65_535).contains(number), portText.allSatisfy(\.isASCII) else {
                throw .invalidURL(url: shown, reason: "the port must be a number from 1 to 65535")
            }
            port = number
        }
        guard let databasePart, !databasePart.isEmpty else {
            throw .invalidURL(url: shown, reason: "it names no database (postgresql://USER@HOST:PORT/DBNAME)")
        }
        let database = try Self.decode(databasePart, in: shown)
        var sslMode = SSLMode.prefer
        for parameter in (query ?? "").split(separator: "&") {
            let (name, value) = String(parameter).splitOnce("=")
            switch name {
            case "sslmode":
                guard let mode = value.flatMap(SSLMode.init(rawValue:)) else {
                    throw .invalidURL(url: shown, reason: "sslmode must be disable, prefer, require or verify-full")
                }
                sslMode = mode
            case "password":
                throw .passwordInURL(url: shown)
            default:
                throw .invalidURL(url: shown, reason: "unknown parameter \(name.debugDescription) (only sslmode)")
            }
        }
        guard
            let name = user.flatMap({ $0.isEmpty ? nil : $0 }) ?? environment["USER"].flatMap({ $0.isEmpty ? nil : $0 })
        else { throw .invalidURL(url: shown, reason: "it names no user and USER is not set") }
        self.init(user: name, host: host, port: port, database: database, sslMode: sslMode)
    }

    /// `HOST[:PORT]` or `[IPV6][:PORT]`.
    private static func hostAndPort(_ text: String, in shown: String) throws(DatabaseLocationError) -> (String, String?)
    {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw .invalidURL(url: shown, reason: "an IPv6 address needs its closing ]")
            }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else {
                throw .invalidURL(url: shown, reason: "unexpected text after the IPv6 address")
            }
            return (host, after.isEmpty ? nil : String(after.dropFirst()))
        }
        let (host, port) = text.splitOnce(":")
        return (host, port)
    }

    /// `value` with its `%XX` escapes decoded.
    private static func decode(_ value: String, in shown: String) throws(DatabaseLocationError) -> String {
        guard let decoded = value.removingPercentEncoding else {
            throw .invalidURL(url: shown, reason: "a % escape is not valid")
        }
        return decoded
    }

    /// `value` with the characters a URL's user or path cannot hold as they are percent-escaped.
    private static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// What follows the scheme with any password taken out, for messages about a URL that is refused.
    static func redacted(_ rest: String) -> String {
        var text = rest
        let queryStart = text.firstIndex(of: "?") ?? text.endIndex
        if let at = text[..<queryStart].lastIndex(of: "@"),
            let colon = text[..<at].firstIndex(of: ":")
        {
            text.replaceSubrange(colon..<at, with: ":***")
        }
        guard let question = text.firstIndex(of: "?") else { return text }
        let parameters = text[text.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("password=") ? "password=***" : String($0) }
        return String(text[...question]) + parameters.joined(separator: "&")
    }
}

// MARK: - The password

extension PostgresLocation {
    /// The password to connect with, looked for in this order: the file a job names (`db_password_file`,
    /// its content up to a trailing line break), `PGPASSWORD`, then the password file `PGPASSFILE`
    /// names or `~/.pgpass` (libpq's format, its first line matching this location). `nil` when none
    /// has one: the server may not ask.
    ///
    /// A `.pgpass` that its group or others can read is ignored with a warning, as libpq does.
    public func password(
        file: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (String) -> Void
    ) throws(DatabaseLocationError) -> String? {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .passwordFile(path: file, reason: Self.unreadableReason(file))
            }
            var text = String(decoding: data, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            guard !text.isEmpty else { throw .passwordFile(path: file, reason: "it is empty") }
            return text
        }
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        let passFile =
            environment["PGPASSFILE"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass"
        var info = stat()
        guard stat(passFile, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        guard info.st_mode & 0o077 == 0 else {
            warn(
                "password file \(passFile) has group or world access; permissions should be u=rw (0600) or less;"
                    + " it is ignored")
            return nil
        }
        guard let data = FileManager.default.contents(atPath: passFile) else { return nil }
        return PassFile.password(in: String(decoding: data, as: UTF8.self), for: self)
    }

    /// Why `path` cannot be read, from the system.
    private static func unreadableReason(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        close(fd)
        return "it cannot be read"
    }
}

/// libpq's password file: lines `host:port:database:username:password`, `*` matching anything in the
/// first four fields, `\:` and `\\` standing for `:` and `\`, `#` starting a comment line.
enum PassFile {
    /// The password of the first line that matches `location`, if any.
    static func password(in text: String, for location: PostgresLocation) -> String? {
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            guard !line.hasPrefix("#") else { continue }
            let fields = self.fields(of: line)
            guard fields.count == 5 else { continue }
            let wanted = [location.host, String(location.port), location.database, location.user]
            if zip(fields, wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// The line's fields, escapes resolved; the fifth is the rest of the line.
    static func fields(of line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}

/// Why a database location cannot be used. No case carries a password.
public enum DatabaseLocationError: Error, Equatable, CustomStringConvertible {
    /// The URL holds a password (`user:secret@` or `?password=`); `url` shows it as `***`.
    case passwordInURL(url: String)
    /// The URL cannot be read; `url` has any password taken out.
    case invalidURL(url: String, reason: String)
    /// A URL of a scheme that names no database filmcache reads (`file://`, `mysql://`); `url` has
    /// any password taken out.
    case unknownScheme(url: String)
    /// The password file a job names cannot be read.
    case passwordFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .passwordInURL(let url):
            "database URL \(url) holds a password; a URL is shown in messages and process lists, so put the"
                + " password in the job's db_password_file, PGPASSWORD or ~/.pgpass instead"
        case .invalidURL(let url, let reason):
            "database URL \(url) is not postgresql://USER@HOST:PORT/DBNAME[?sslmode=MODE]: \(reason)"
        case .unknownScheme(let url):
            "database \(url) is neither a SQLite file's path nor postgresql://USER@HOST:PORT/DBNAME"
        case .passwordFile(let path, let reason):
            "cannot read the database password file \(path): \(reason)"
        }
    }
}

extension String {
    /// The text before the first `separator` and after it (`nil` when there is none).
    fileprivate func splitOnce(_ separator: Character) -> (String, String?) {
        guard let index = firstIndex(of: separator) else { return (self, nil) }
        return (String(self[..<index]), String(self[self.index(after: index)...]))
    }
}
