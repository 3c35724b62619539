import Foundation

/// An open directory whose entries are reached by name relative to it, following no symlink.
///
/// Once a directory is open, swapping it (or a directory above it) for a symlink changes
/// nothing: every look, open and removal below it goes through this descriptor (`openat`,
/// `fstatat`, `unlinkat` with `O_NOFOLLOW` / `AT_SYMLINK_NOFOLLOW`), never through a path.
/// The descriptor never changes and every call is a system call on it, so a handle may be shared.
final class DirectoryHandle: Sendable {
    /// The open directory's descriptor.
    let fd: Int32

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// Opens the directory at `path`, following symlinks in it (the path an operator named), or
    /// `nil` with `errno` set.
    convenience init?(path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.init(fd: fd)
    }

    /// Opens the subdirectory `name`, made first (mode 0755 less the umask) when `create` says so,
    /// or `nil` with `errno` set: `ELOOP` or `ENOTDIR` when `name` is a symlink or not a directory.
    func subdirectory(_ name: String, create: Bool = false) -> DirectoryHandle? {
        if create, mkdirat(fd, name, 0o755) != 0, errno != EEXIST { return nil }
        let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard child >= 0 else { return nil }
        return DirectoryHandle(fd: child)
    }

    /// The names of its entries, `.` and `..` left out; empty when it cannot be read.
    func names() -> [String] {
        // A descriptor of its own (not a `dup`, which would share the read position with other callers).
        let copy = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard copy >= 0 else { return [] }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The entry `name`'s status, a symlink's own rather than its target's; `nil` when it is not there.
    func status(of name: String) -> stat? {
        var info = stat()
        return fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// Sets the entry `name`'s access and modification times to now (a symlink's own, never its target's).
    func touch(_ name: String) {
        _ = utimensat(fd, name, nil, AT_SYMLINK_NOFOLLOW)
    }

    /// Removes the entry `name` (a symlink itself, never its target); whether it was removed.
    @discardableResult
    func remove(_ name: String) -> Bool {
        unlinkat(fd, name, 0) == 0
    }

    /// Removes the subdirectory `name` when it is empty (and a directory, not a symlink to one).
    @discardableResult
    func removeDirectoryIfEmpty(_ name: String) -> Bool {
        unlinkat(fd, name, AT_REMOVEDIR) == 0
    }
}
