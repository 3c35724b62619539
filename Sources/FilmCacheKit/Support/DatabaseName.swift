import Foundation

/// One database, one name: the path every command opens, locks and reports, resolved before use.
///
/// Two names of one file would each get their own `-wal`, `-shm` and `.lock`, and two warms
/// through them would lose committed rows. So a path is resolved through symlinks (`realpath`),
/// a file with more than one hard link is refused, and `:memory:` or `file:` URIs, which name
/// no file, are refused too. A database not yet created resolves through its directory.
public enum DatabaseName {
    /// The one name of the database at `path`.
    public static func resolve(_ path: String) throws(DatabaseNameError) -> String {
        guard !namesNoFile(path) else { throw .notAFile(path) }
        var link = stat()
        guard lstat(path, &link) == 0 else {
            guard errno == ENOENT else { throw .unreadable(path, String(cString: strerror(errno))) }
            return absent(path)
        }
        guard let real = realpath(path, nil) else {
            if (link.st_mode & S_IFMT) == S_IFLNK {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
                throw .danglingSymlink(path, target: target)
            }
            throw .unreadable(path, String(cString: strerror(errno)))
        }
        defer { free(real) }
        let resolved = String(cString: real)
        var info = stat()
        guard stat(resolved, &info) == 0 else { throw .unreadable(path, String(cString: strerror(errno))) }
        if (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink > 1 {
            throw .hardLinks(resolved, count: Int(info.st_nlink))
        }
        return resolved
    }

    /// Whether `value` is a URL, not a file: a PostgreSQL one (`postgresql:` or `postgres:`, the
    /// scheme in any case), or any scheme but `file:` followed by `//` or holding an `@`, which
    /// `DatabaseLocation` (FilmCachePostgres) refuses.
    public static func isURL(_ value: String) -> Bool {
        guard let (scheme, rest) = scheme(of: value.drop { $0.isWhitespace }) else { return false }
        let name = scheme.lowercased()
        return serverSchemes.contains(name)
            || ((rest.hasPrefix("//") || rest.contains("@")) && name != "file")
    }

    /// The schemes that name a database server (PostgreSQL's two), in lower case.
    package static let serverSchemes: Set<String> = ["postgresql", "postgres"]

    /// The scheme `text` starts with (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`, then
    /// `:`) and what follows its colon; `nil` when it starts with none.
    package static func scheme(of text: Substring) -> (scheme: String, rest: Substring)? {
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter else {
            return nil
        }
        let scheme = text[..<colon]
        guard scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            return nil
        }
        return (String(scheme), text[text.index(after: colon)...])
    }

    /// Whether `path` is empty, `:memory:` or a `file:` URI: SQLite would open no file, or one chosen by the URI.
    public static func namesNoFile(_ path: String) -> Bool {
        path.isEmpty || path == ":memory:" || path.lowercased().hasPrefix("file:")
    }

    /// A database not created yet: its directory resolved, its own name kept.
    ///
    /// A directory that cannot be resolved (missing, unreadable) leaves the path as given: opening
    /// it then fails with its own message and exit status.
    private static func absent(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        guard let real = realpath(directory, nil) else { return path }
        defer { free(real) }
        let base = String(cString: real)
        return (base == "/" ? "" : base) + "/" + url.lastPathComponent
    }
}

/// Why a database path names no single file.
public enum DatabaseNameError: Error, Equatable, CustomStringConvertible {
    /// `:memory:`, a `file:` URI or nothing: no file to keep the cache and the ledger in.
    case notAFile(String)
    /// The file has other names: each would get its own WAL and run lock.
    case hardLinks(String, count: Int)
    /// A symlink to nothing.
    case danglingSymlink(String, target: String)
    /// The path could not be looked at.
    case unreadable(String, String)

    /// What is wrong, naming the file.
    public var description: String {
        switch self {
        case .notAFile(let path):
            "database '\(path)' is not a file path (in-memory databases and file: URIs would throw the ledger away)"
        case .hardLinks(let path, let count):
            "database \(path) has \(count) hard links; a database must have one name (remove the other links)"
        case .danglingSymlink(let path, let target):
            "database \(path) is a symlink to \(target), which does not exist"
        case .unreadable(let path, let reason): "database \(path): \(reason)"
        }
    }
}
