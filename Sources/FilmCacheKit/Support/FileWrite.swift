import Foundation

/// Whole writes to a file descriptor.
public enum FileWrite {
    /// Writes every byte of `bytes` to `descriptor`, going on after short writes and `EINTR`.
    ///
    /// Returns `nil` once all are written, else the `errno` of the failure (`EIO` for a write
    /// that wrote nothing without one).
    @discardableResult
    public static func all(_ bytes: some ContiguousBytes, to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return written < 0 ? errno : EIO
                }
            }
            return nil
        }
    }
}
