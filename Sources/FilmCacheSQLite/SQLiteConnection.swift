import CSQLite
import FilmCacheKit
import FilmCacheSQL
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One SQLite connection with prepared-statement helpers; not thread-safe, owned by one holder.
///
/// A thin wrapper is all filmcache needs: one writer, a handful of statements
/// prepared once and reused, no ORM. Errors carry SQLite's own message.
final class SQLiteConnection {
    let handle: OpaquePointer
    let path: String
    private var statementCache: [String: SQLiteStatement] = [:]

    /// The library's process-wide settings, made before its first connection opens.
    private static let configured: Void = { _ = fc_sqlite_memstatus_off() }()

    /// Opens (creating if asked) the database file at `path`; `immutable` opens it read-only as a
    /// file nothing changes (SQLite's `immutable` URI parameter: no locks, no `-wal` or `-shm`).
    init(path: String, readOnly: Bool = false, create: Bool = true, immutable: Bool = false) throws(StoreError) {
        _ = Self.configured
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_NOMUTEX
        flags |= readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
        var name = path
        if immutable {
            flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))
            name = "file:" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path) + "?immutable=1"
        }
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message =
                db.map { Self.withSystemReason(String(cString: sqlite3_errmsg($0)), rc, $0, path: path) }
                ?? "out of memory"
            sqlite3_close_v2(db)
            throw .open(database: path, message: message)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Opens the file at `path` for reading only, by someone who may not write its directory.
    ///
    /// A reader of a WAL database needs its `-shm` file, and SQLite creates it when it is missing,
    /// which a reader in the cache's group cannot do: the directory is not theirs. The writer keeps
    /// `-wal` and `-shm` between runs, but the last connection of another program (an
    /// administrator's `sqlite3`) deletes both when it closes, after copying the `-wal` into the
    /// file. Then every committed row is in the file itself, so the file is opened as immutable
    /// instead: it is read without the `-shm`, and a writer that starts meanwhile writes to a new
    /// `-wal` the read does not see. With a `-wal` still there, the error stands.
    static func reader(path: String) throws(StoreError) -> SQLiteConnection {
        let db = try SQLiteConnection(path: path, readOnly: true, create: false)
        let rc = sqlite3_exec(db.handle, "PRAGMA user_version", nil, nil, nil)
        let primary = rc & 0xff
        guard primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN else { return db }
        var wal = stat()
        if stat(path + "-wal", &wal) == 0, wal.st_size > 0 { return db }
        return try SQLiteConnection(path: path, immutable: true)
    }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws(StoreError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw Self.failure(path: path, code: rc, message: Self.withSystemReason(message, rc, handle, path: path))
        }
    }

    /// Compiles `sql` into a reusable statement.
    func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(rc) }
        return SQLiteStatement(statement, connection: self)
    }

    /// The statement for `sql`, compiled on first use and kept for the connection's life: for
    /// statements run often but not worth a named slot, such as the ledger's.
    func cached(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let statement = statementCache[sql] { return statement }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    ///
    /// IMMEDIATE takes the write lock up front, so two processes never both read
    /// a value and then both write from it (the quota ledger depends on that).
    /// A `deferred` transaction that writes only temporary tables never takes the database's
    /// write lock, so reads made that way wait for no writer.
    func transaction<T>(deferred: Bool = false, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try execute(deferred ? "BEGIN DEFERRED" : "BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the most recent statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Turns a result code into a `StoreError` carrying SQLite's message.
    func error(_ rc: Int32) -> StoreError {
        Self.failure(
            path: path, code: rc,
            message: Self.withSystemReason(String(cString: sqlite3_errmsg(handle)), rc, handle, path: path))
    }

    /// A failed statement's error: SQLite's code named, and whether it was a lock held too long.
    static func failure(path: String, code: Int32, message: String) -> StoreError {
        .failed(
            database: path, message: message, code: "SQLite code \(code)",
            busy: code & 0xff == SQLITE_BUSY || code & 0xff == SQLITE_LOCKED)
    }

    /// SQLite's `message`, followed by the reason the system gave when a file could not be opened or read.
    ///
    /// "unable to open database file" alone does not say why. In WAL mode SQLite creates `-wal` and `-shm`
    /// files beside the database, so a directory it cannot write is the usual cause; the last system
    /// error would then name one of those files, not the database, so the directory is checked first.
    static func withSystemReason(_ message: String, _ rc: Int32, _ db: OpaquePointer, path: String) -> String {
        let primary = rc & 0xff
        guard primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR else { return message }
        if primary == SQLITE_CANTOPEN, path != ":memory:" {
            let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
            if access(directory, W_OK) != 0 {
                return message + ": directory \(directory) is not writable (\(String(cString: strerror(errno))))"
            }
        }
        let code = sqlite3_system_errno(db)
        return code == 0 ? message : message + ": " + String(cString: strerror(code))
    }
}

/// A prepared statement; bind, step, read columns, reset, and go again.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private unowned let connection: SQLiteConnection

    fileprivate init(_ statement: OpaquePointer, connection: SQLiteConnection) {
        self.statement = statement
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(statement)
    }

    /// Binds the values to parameters 1…n in order, after clearing earlier bindings.
    func bind(_ values: [SQLValue]) throws(StoreError) {
        sqlite3_reset(statement)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    func bind(_ value: SQLValue, at index: Int32) throws(StoreError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(statement, index)
        case .blob(let bytes): return try bind(blob: bytes, at: index)
        case .integer(let v): rc = sqlite3_bind_int64(statement, index, Int64(v))
        case .real(let v): rc = sqlite3_bind_double(statement, index, v)
        case .text(var v):
            // Native strings hand SQLite their UTF-8 directly: no C-string copy, no strlen.
            rc = v.withUTF8 { bytes in
                sqlite3_bind_text64(
                    statement, index,
                    bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                    sqlite3_uint64(bytes.count), fc_sqlite_transient(), UInt8(SQLITE_UTF8))
            }
        }
        if rc != SQLITE_OK { throw connection.error(rc) }
    }

    /// Binds `bytes` as a BLOB to the 1-based parameter `index`, after the others are bound.
    func bind(blob bytes: [UInt8], at index: Int32) throws(StoreError) {
        // No pointer would bind NULL: no bytes are a zero-length BLOB instead.
        let rc =
            bytes.isEmpty
            ? sqlite3_bind_zeroblob(statement, index, 0)
            : bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(
                    statement, index, buffer.baseAddress, sqlite3_uint64(buffer.count), fc_sqlite_transient())
            }
        if rc != SQLITE_OK { throw connection.error(rc) }
    }

    /// Runs the statement as `run(_:)` does, with `blob` bound to parameter `index` besides `values`.
    func run(_ values: [SQLValue], blob: [UInt8], at index: Int32) throws(StoreError) {
        try bind(values)
        try bind(blob: blob, at: index)
        while try step() {}
        sqlite3_reset(statement)
    }

    /// Advances to the next row; `false` when the statement is done.
    @discardableResult
    func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(statement)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(statement)
            throw connection.error(rc)
        }
    }

    /// Binds, runs to completion and resets: for statements that return no rows.
    func run(_ values: [SQLValue]) throws(StoreError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(statement)
    }

    /// Ends a run of `step()` calls before the last row, releasing the read it holds.
    func reset() {
        sqlite3_reset(statement)
    }

    /// Binds and collects every row through `row`.
    func query<T>(_ values: [SQLValue] = [], _ row: (SQLiteStatement) throws(StoreError) -> T) throws(StoreError)
        -> [T]
    {
        var rows: [T] = []
        try forEach(values) { (statement) throws(StoreError) in rows.append(try row(statement)) }
        return rows
    }

    /// Binds and hands each row to `body` as it is stepped, keeping none: for scans of whole tables.
    func forEach(_ values: [SQLValue] = [], _ body: (SQLiteStatement) throws(StoreError) -> Void) throws(StoreError) {
        try bind(values)
        defer { sqlite3_reset(statement) }
        while try step() { try body(self) }
    }

    /// Column `index` as text, `nil` when NULL.
    func text(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, index) else { return nil }
        // By length, not up to the first NUL: a NUL inside a stored string is kept, not a cut.
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index`'s text as SQLite holds it, `nil` when NULL; valid until the next step or reset.
    func textBytes(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let pointer = sqlite3_column_text(statement, index) else { return nil }
        return UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, index)))
    }

    /// Column `index` as bytes, exactly as stored (a BLOB, or a text's UTF-8), `nil` when NULL.
    func bytes(_ index: Int32) -> [UInt8]? {
        guard sqlite3_column_type(statement, index) != SQLITE_NULL else { return nil }
        // A zero-length value has no pointer: ask for it first, then its length.
        guard let pointer = sqlite3_column_blob(statement, index) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, index))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Column `index` as an integer, `nil` when NULL.
    func int(_ index: Int32) -> Int? {
        sqlite3_column_type(statement, index) == SQLITE_NULL ? nil : Int(sqlite3_column_int64(statement, index))
    }

    /// Whether column `index` holds a floating-point value (not an integer, text or NULL).
    func isReal(_ index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_FLOAT
    }

    /// Column `index` as a double, `nil` when NULL.
    func double(_ index: Int32) -> Double? {
        sqlite3_column_type(statement, index) == SQLITE_NULL ? nil : sqlite3_column_double(statement, index)
    }
}
