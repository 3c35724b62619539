import CSQLite
import Dispatch
import FilmCacheKit
import Logging
import Synchronization

/// Copies the WAL into the database file on a connection and thread of its own, so the writer
/// commits on while a checkpoint waits for the disk.
///
/// SQLite's own checkpoint runs on the committing thread after the commit that takes the WAL past
/// 1,000 pages: it syncs the WAL, copies its pages into the file and syncs the file, and the writer
/// waits for both syncs (a third of a 100,000-film import). Here the writer's commit hook hands
/// that checkpoint to a queue at the same points, `threshold` pages apart, and goes on. One runs at
/// a time: when the next is due before the last is done, the writer waits for it. So the WAL is
/// synced about as often as before, and what a power loss can take back (what was committed since
/// the last sync) is at most about two thresholds and a commit, where it was one.
///
/// A checkpoint copies only what no reader still needs, and the WAL starts over only when a
/// transaction begins with all of it copied, which a writer that never pauses would never see. So
/// at `limit` pages the writer waits for the checkpoints asked for and runs one itself, as SQLite's
/// own would, and its next transaction starts the WAL over. A reader that holds an old snapshot
/// holds that back, as it did before: the WAL then grows, its pages unsynced, and each commit
/// past `limit` runs a checkpoint on the writer's thread until the reader is done.
final class Checkpointer: Sendable {
    /// Pages between two checkpoints: SQLite's default.
    static let defaultThreshold: Int32 = 1000
    /// Pages at which the writer waits for a checkpoint of everything: about 48 MiB of 4 KiB pages
    /// and their frame headers, so that with the commit that passed it (a page of `db copy` or a
    /// large TMDb batch) the WAL stays under the 64 MiB `journal_size_limit` truncates it to.
    static let defaultLimit: Int32 = 12000

    let path: String
    let threshold: Int32
    let limit: Int32
    private let logger: Logger
    private let queue = DispatchQueue(label: "filmcache.sqlite.checkpoint")
    /// The WAL's size in pages when a checkpoint was last asked for (0 once it starts over).
    private let requestedAt = Mutex<Int32>(0)
    /// The checkpoint's own connection, opened and read from beside the writer's, so that it has
    /// the same database, `-wal` and `-shm` open whatever their names come to name (a restore that
    /// swaps the files under a running serve); used on `queue` only, `nil` once detached.
    private let connection: Mutex<SQLiteConnection?>
    /// Whether a failed checkpoint was logged: one warning, not one a commit.
    private let warned = Atomic<Bool>(false)

    /// A checkpointer for the database at `path`, just opened by its writer.
    init(path: String, logger: Logger, threshold: Int32 = defaultThreshold, limit: Int32 = defaultLimit)
        throws(StoreError)
    {
        self.path = path
        self.logger = logger
        self.threshold = max(1, threshold)
        self.limit = max(self.threshold, limit)
        let db = try SQLiteConnection(path: path, create: false)
        // As the writer's: its first read waits out another process's lock (a recovery) instead of failing.
        sqlite3_busy_timeout(db.handle, 10_000)
        // A first read opens the WAL (until then a checkpoint finds none and copies nothing): now,
        // while the names are the writer's files.
        try db.execute("PRAGMA synchronous = NORMAL; PRAGMA user_version")
        connection = Mutex(db)
    }

    /// Makes `db` (the writer's connection) hand its checkpoints to this checkpointer, in place of
    /// SQLite's own after the commit that reaches 1,000 pages.
    func attach(to db: SQLiteConnection) {
        sqlite3_wal_hook(db.handle, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops `db` calling this checkpointer, waits for the checkpoints asked for and closes the
    /// checkpoint's connection, so that the writer's close is the last and folds the WAL in.
    func detach(from db: SQLiteConnection) {
        sqlite3_wal_hook(db.handle, nil, nil)
        queue.sync { connection.withLock { $0 = nil } }
    }

    /// Waits for every checkpoint asked for so far.
    func settle() {
        queue.sync {}
    }

    /// Called on the writer's thread (`writer` its connection) after each commit, with the WAL's size in pages.
    fileprivate func committed(pages: Int32, writer: OpaquePointer) {
        if pages >= limit {
            // Once the checkpoints asked for are done, the writer's own copies all the rest that no
            // reader holds, and its next transaction starts the WAL over.
            requestedAt.withLock { $0 = 0 }
            settle()
            report(sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil), writer)
            return
        }
        let due = requestedAt.withLock { (at: inout Int32) -> Bool in
            if pages < at { at = 0 }
            guard pages - at >= threshold else { return false }
            at = pages
            return true
        }
        guard due else { return }
        // One checkpoint at a time: a writer faster than the disk waits for the one before (on an
        // idle queue this returns at once), so what is committed and not synced stays under two
        // thresholds and a commit.
        settle()
        queue.async { self.checkpoint() }
    }

    /// One passive checkpoint: it never waits for a lock, and another process's running one is left to finish.
    private func checkpoint() {
        connection.withLock { (db: inout SQLiteConnection?) in
            guard let db else { return }
            report(sqlite3_wal_checkpoint_v2(db.handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil), db.handle)
        }
    }

    /// Logs the first checkpoint that failed; one that found another running (busy) has not.
    private func report(_ rc: Int32, _ handle: OpaquePointer) {
        guard rc != SQLITE_OK, rc & 0xff != SQLITE_BUSY, !warned.exchange(true, ordering: .relaxed) else { return }
        logger.warning(
            "checkpoint failed; the WAL is copied into the file at the next one",
            metadata: ["database": "\(path)", "error": "\(String(cString: sqlite3_errmsg(handle))) (\(rc))"])
    }
}

/// SQLite's commit hook for a connection with a ``Checkpointer`` (its context).
private func walHook(
    _ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ pages: Int32
) -> Int32 {
    guard let context, let db else { return SQLITE_OK }
    Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().committed(pages: pages, writer: db)
    return SQLITE_OK
}
