import Foundation

/// A temporary file created exclusively beside the file it will replace.
///
/// The name is hidden and random (`.NAME.<16 hex digits>.tmp`), and the file is created with
/// `O_CREAT | O_EXCL | O_NOFOLLOW`: whatever already sits at the name — a symlink planted to
/// make the write land elsewhere, a leftover file — is never opened, written or truncated.
enum TemporaryFile {
    /// Creates a new file beside `name` in `parent` (`nil`: the directory itself), relative to the
    /// open directory `directory`, with `mode` (less the umask), open for writing.
    ///
    /// Returns its descriptor and path, or `nil` with `errno` set once a few names were all taken.
    private static func create(beside name: String, in parent: String?, directory: Int32, mode: mode_t)
        -> (fd: Int32, path: String)?
    {
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
    /// the bytes go to a new temporary file beside it (``create(beside:in:directory:mode:)``), which is renamed
    /// over `path`. With `sync`, the file is flushed before the rename and the directory after it,
    /// so the rename survives a crash; without, the caller flushes (a kill never shows a part either way).
    /// A relative `path` is taken relative to the open directory `directory`, when given.
    ///
    /// Returns `nil`, or what failed with the system's words; the temporary file is then removed.
    static func replace(
        _ path: String, in directory: Int32 = AT_FDCWD, with bytes: some ContiguousBytes, mode: mode_t, sync: Bool
    ) -> String? {
        let (parent, name) = split(path)
        func failure(_ step: String, _ code: Int32 = errno) -> String { "\(step): \(String(cString: strerror(code)))" }
        guard let (fd, temporary) = create(beside: name, in: parent, directory: directory, mode: mode) else {
            return failure("cannot create a temporary file in \(parent ?? "its directory")")
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
            let directoryFD = openat(directory, parent ?? ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if directoryFD >= 0 {
                fsync(directoryFD)
                close(directoryFD)
            }
        }
        return nil
    }

    /// `path`'s directory part (`nil` for a bare name; `/` for a file at the root) and its last component.
    private static func split(_ path: String) -> (parent: String?, name: String) {
        // On the UTF-8 view: a byte search, where the string's own view would walk its characters.
        let utf8 = path.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return (nil, path) }
        let parent = String(path[..<slash])
        return (parent.isEmpty ? "/" : parent, String(path[utf8.index(after: slash)...]))
    }

    /// Whether `name` (a file name, no directory) is one ``create(beside:in:directory:mode:)`` makes.
    static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }
}
