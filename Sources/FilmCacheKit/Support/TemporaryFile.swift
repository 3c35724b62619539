import Foundation

/// A temporary file created exclusively beside the file it will replace.
///
/// The name is hidden and random (`.NAME.<16 hex digits>.tmp`), and the file is created with
/// `O_CREAT | O_EXCL | O_NOFOLLOW`: whatever already sits at the name — a symlink planted to
/// make the write land elsewhere, a leftover file — is never opened, written or truncated.
enum TemporaryFile {
    /// Creates a new file beside `path` (relative to the open directory `directory`, when given)
    /// with `mode` (less the umask), open for writing.
    ///
    /// Returns its descriptor and path, or `nil` with `errno` set once a few names were all taken.
    static func create(beside path: String, in directory: Int32 = AT_FDCWD, mode: mode_t) -> (fd: Int32, path: String)?
    {
        let (parent, name) = split(path)
        let prefix = (parent.map { $0 + "/" } ?? "") + "." + name + "."
        for _ in 0..<8 {
            let name = prefix + String(UInt64.random(in: .min ... .max), radix: 16) + ".tmp"
            let fd = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 { return (fd, name) }
            guard errno == EEXIST else { return nil }
        }
        return nil
    }

    /// Replaces `path` with `bytes` so that readers see the old file or the new one, never a part:
    /// the bytes go to a new temporary file beside it (``create(beside:mode:)``), which is renamed
    /// over `path`. With `sync`, the file is flushed before the rename and the directory after it,
    /// so the rename survives a crash; without, the caller flushes (a kill never shows a part either way).
    /// A relative `path` is taken relative to the open directory `directory`, when given.
    ///
    /// Returns `nil`, or what failed with the system's words; the temporary file is then removed.
    static func replace(
        _ path: String, in directory: Int32 = AT_FDCWD, with bytes: some ContiguousBytes, mode: mode_t, sync: Bool
    ) -> String? {
        let parent = split(path).parent ?? "its directory"
        func failure(_ step: String, _ code: Int32 = errno) -> String { "\(step): \(String(cString: strerror(code)))" }
        guard let (fd, temporary) = create(beside: path, in: directory, mode: mode) else {
            return failure("cannot create a temporary file in \(parent)")
        }
        var error = FileWrite.all(bytes, to: fd).map { failure("cannot write \(temporary)", $0) }
        if error == nil, sync, fsync(fd) != 0 { error = failure("cannot flush \(temporary)") }
        if close(fd) != 0, error == nil { error = failure("cannot close \(temporary)") }
        if error == nil, renameat(directory, temporary, directory, path) != 0 {
            error = failure("cannot rename \(temporary) over it")
        }
        if let error {
            unlinkat(directory, temporary, 0)
            return error
        }
        if sync {
            let directoryFD = openat(directory, split(path).parent ?? ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directoryFD >= 0 {
                fsync(directoryFD)
                close(directoryFD)
            }
        }
        return nil
    }

    /// `path`'s directory part (`nil` for a bare name; `/` for a file at the root) and its last component.
    private static func split(_ path: String) -> (parent: String?, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (nil, path) }
        let parent = String(path[..<slash])
        return (parent.isEmpty ? "/" : parent, String(path[path.index(after: slash)...]))
    }

    /// Whether `name` (a file name, no directory) is one ``create(beside:mode:)`` makes.
    static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }
}
