/// What went wrong with the cache database, naming it (a path, or a URL with no password) and
/// giving the database's own message. The same cases serve every backend.
public enum StoreError: Error, CustomStringConvertible, Equatable {
    /// The database could not be opened (missing directory, permissions, not a database, no such
    /// database or role, authentication refused).
    case open(database: String, message: String)
    /// A statement failed; `code` is the backend's code for it ("SQLite code 13", "SQLSTATE
    /// 23505"); `busy` when another connection held a lock for too long.
    case failed(database: String, message: String, code: String, busy: Bool = false)
    /// The database server cannot be reached, or the connection was lost: worth trying later.
    case unavailable(database: String, message: String)
    /// The database was written by a newer filmcache whose schema this one does not know.
    case newerSchema(database: String, found: Int, supported: Int)

    public var description: String {
        switch self {
        case .open(let database, let message):
            "cannot open cache database \(database): \(message)"
        case .failed(let database, let message, let code, _):
            "cache database \(database): \(message) (\(code))"
        case .unavailable(let database, let message):
            "cache database \(database) is unavailable: \(message)"
        case .newerSchema(let database, let found, let supported):
            "cache database \(database) has schema version \(found), newer than this filmcache supports"
                + " (\(supported)); upgrade filmcache"
        }
    }

    /// Whether the failure is another connection holding a lock for too long.
    public var isBusy: Bool {
        if case .failed(_, _, _, let busy) = self { return busy }
        return false
    }
}
