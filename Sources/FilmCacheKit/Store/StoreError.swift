import CSQLite

/// What went wrong with the cache database, with the path and SQLite's message.
public enum StoreError: Error, CustomStringConvertible {
    /// The file could not be opened (missing directory, permissions, not a database).
    case open(path: String, message: String)
    /// A statement failed.
    case sqlite(path: String, code: Int32, message: String)
    /// The file was written by a newer filmcache whose schema this one does not know.
    case newerSchema(path: String, found: Int, supported: Int)

    public var description: String {
        switch self {
        case .open(let path, let message):
            "cannot open cache database \(path): \(message)"
        case .sqlite(let path, let code, let message):
            "cache database \(path): \(message) (SQLite code \(code))"
        case .newerSchema(let path, let found, let supported):
            "cache database \(path) has schema version \(found), newer than this filmcache supports (\(supported));"
                + " upgrade filmcache"
        }
    }

    /// Whether the failure is another process holding the lock for too long.
    public var isBusy: Bool {
        if case .sqlite(_, let code, _) = self { return code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED }
        return false
    }
}
