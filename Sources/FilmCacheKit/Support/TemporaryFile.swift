import Foundation

/// A temporary file created exclusively beside the file it will replace.
///
/// The name is hidden and random (`.NAME.<16 hex digits>.tmp`), and the file is created with
/// `O_CREAT | O_EXCL | O_NOFOLLOW`: whatever already sits at the name — a symlink planted to
/// make the write land elsewhere, a leftover file — is never opened, written or truncated.
enum TemporaryFile {
    /// Creates a new file beside `path` with `mode` (less the umask), open for writing.
    ///
    /// Returns its descriptor and path, or `nil` with `errno` set once a few names were all taken.
    static func create(beside path: String, mode: mode_t) -> (fd: Int32, path: String)? {
        let url = URL(fileURLWithPath: path)
        let prefix = url.deletingLastPathComponent().path + "/." + url.lastPathComponent + "."
        for _ in 0..<8 {
            let name = prefix + String(UInt64.random(in: .min ... .max), radix: 16) + ".tmp"
            let fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 { return (fd, name) }
            guard errno == EEXIST else { return nil }
        }
        return nil
    }
}
