import FilmCacheKit
import Foundation

/// Bytes gathered for a file descriptor and written in large pieces.
struct OutputBuffer {
    /// Bytes not written yet.
    var bytes: [UInt8] = []
    private let descriptor: Int32

    /// A buffer for `descriptor`.
    init(descriptor: Int32) {
        self.descriptor = descriptor
        bytes.reserveCapacity(CacheExport.pageBytes + (64 << 10))
    }

    /// Writes every byte gathered. A reader that went away (with SIGPIPE ignored) is
    /// ``TransferError/outputClosed``; any other failure is ``TransferError/cannotWrite(reason:)``.
    mutating func flush() throws(TransferError) {
        let failure = FileWrite.all(bytes, to: descriptor)
        bytes.removeAll(keepingCapacity: true)
        guard let failure else { return }
        if failure == EPIPE { throw .outputClosed }
        throw .cannotWrite(reason: String(cString: strerror(failure)))
    }
}
