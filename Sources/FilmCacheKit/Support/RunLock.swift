import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock(2)` on `<database>.lock`, so only one warm works on a database at a time.
///
/// The kernel drops the lock when the holder exits, however it exits, so a crashed run never
/// leaves a stale lock behind; the file itself stays (removing it would let two runs lock
/// two different files of the same name). The holder writes its process id into the file so
/// that a refused run can say who holds it. Readers of the database never take this lock.
public final class RunLock: Sendable {
    /// The lock file.
    public let path: String
    private let descriptor: Mutex<Int32>

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = Mutex(descriptor)
    }

    deinit {
        release()
    }

    /// The lock file of the database at `databasePath`: the same path with `.lock` appended.
    ///
    /// `databasePath` is the database's one name (``DatabaseName/resolve(_:)``), so every alias
    /// of the file shares this lock; the lock file itself is opened without following a symlink.
    public static func path(forDatabase databasePath: String) -> String { databasePath + ".lock" }

    /// Takes the lock of the database at `databasePath`.
    ///
    /// When another process holds it: without `wait`, throws ``RunLockError/held(path:pid:)`` at
    /// once; with `wait`, calls `onWait` once with the holder's process id (if it wrote one) and
    /// blocks the calling thread until the lock is free, trying it every 100 ms, or until
    /// `giveUp` says so (a stop signal): then throws ``RunLockError/gaveUp(path:)``.
    public static func acquire(
        forDatabase databasePath: String, wait: Bool = false, onWait: (_ holder: Int32?) -> Void = { _ in },
        giveUp: () -> Bool = { false }
    ) throws(RunLockError) -> RunLock {
        let path = path(forDatabase: databasePath)
        var fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        let openError = errno
        // flock needs no write access: a lock file another user created can still be locked.
        if fd < 0, openError == EACCES { fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard fd >= 0 else { throw .unavailable(path: path, reason: String(cString: strerror(openError))) }
        if !tryLock(fd) {
            guard errno == EWOULDBLOCK else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw .unavailable(path: path, reason: reason)
            }
            let holder = readPID(fd)
            guard wait else {
                close(fd)
                throw .held(path: path, pid: holder)
            }
            onWait(holder)
            // Polled rather than a blocking flock: a signal that only sets a flag would not end it.
            while !tryLock(fd) {
                guard errno == EWOULDBLOCK else {
                    let reason = String(cString: strerror(errno))
                    close(fd)
                    throw .unavailable(path: path, reason: reason)
                }
                if giveUp() {
                    close(fd)
                    throw .gaveUp(path: path)
                }
                usleep(100_000)
            }
        }
        writePID(fd)
        return RunLock(path: path, descriptor: fd)
    }

    /// Gives the lock up now rather than at exit. Later calls do nothing.
    public func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            close(fd)  // closing the last descriptor of the open file drops the flock
            fd = -1
        }
    }

    /// A non-blocking flock, retried when a signal interrupts it; `false` with errno set when not taken.
    private static func tryLock(_ fd: Int32) -> Bool {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Best effort: a read-only lock file keeps the previous holder's id, which is only informative.
    private static func writePID(_ fd: Int32) {
        let text = Array("\(getpid())\n".utf8)
        guard ftruncate(fd, 0) == 0 else { return }
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }
}

/// Why the run lock could not be taken.
public enum RunLockError: Error, Equatable, CustomStringConvertible {
    /// Another process holds the lock; carries its process id when it wrote one.
    case held(path: String, pid: Int32?)
    /// The lock file could not be opened or locked.
    case unavailable(path: String, reason: String)
    /// Waiting for it ended because the run was asked to stop.
    case gaveUp(path: String)

    /// What happened, naming the lock file.
    public var description: String {
        switch self {
        case .held(let path, let pid): "another warm holds \(path) (\(pid.map { "pid \($0)" } ?? "pid unknown"))"
        case .unavailable(let path, let reason): "cannot take the run lock \(path): \(reason)"
        case .gaveUp(let path): "stopped while waiting for the run lock \(path); nothing was done"
        }
    }
}
