import CFilmCacheSystem
import Dispatch
import Foundation

/// The content-addressed directory posters are kept in: `ROOT/ab/cd/<sha256>.<ext>`.
///
/// A file's name is the SHA-256 of its bytes, so one image shared by several films (or fetched
/// twice) is stored once, and a name never holds other bytes than it says. Every file is written
/// under a temporary name in its final directory and renamed: a kill leaves at most a
/// temporary file (``prune(isReferenced:now:grace:)`` removes it), never half an image under a
/// final name. Files are not synced one by one (that cost three quarters of the throughput):
/// ``sync()`` flushes them all before the rows naming them are committed, so after a power
/// loss no row names a file that is not on disk.
///
/// The root is opened once, as the operator named it (a symlink in that path is followed: that
/// is where the operator put the store). Below it nothing is followed: every directory and file
/// is reached relative to an open directory with `O_NOFOLLOW`, so a symlink planted in the tree,
/// before or during a run, never makes the store write, judge or delete a file outside it.
public struct PosterStore: Sendable {
    /// The directory, absolute.
    public let root: String
    /// The root, open.
    private let directory: DirectoryHandle

    /// Opens the store at `root`, creating the directory when missing.
    public init(root: String) throws(PosterStoreError) {
        let absolute = URL(fileURLWithPath: root).standardizedFileURL.path
        self.root = absolute
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .notADirectory(path: absolute) }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: absolute, withIntermediateDirectories: true)
            } catch {
                throw .cannotCreate(path: absolute, reason: Self.reason(error))
            }
        }
        guard access(absolute, W_OK | X_OK) == 0 else {
            throw .cannotWrite(path: absolute, reason: String(cString: strerror(errno)))
        }
        guard let directory = DirectoryHandle(path: absolute) else {
            throw .cannotWrite(path: absolute, reason: String(cString: strerror(errno)))
        }
        self.directory = directory
    }

    /// Where a poster with this digest and format lives, relative to the root: `ab/cd/<sha256>.<ext>`.
    public static func relativePath(sha256: String, image: PosterImage) -> String {
        let digits = Array(sha256)
        return "\(String(digits[0..<2]))/\(String(digits[2..<4]))/\(sha256).\(image.fileExtension)"
    }

    /// The absolute path of a file named relative to the root.
    public func path(of relativePath: String) -> String {
        root + "/" + relativePath
    }

    /// Whether the store holds a regular file at `relativePath` (`ab/cd/<name>`, hex-pair
    /// directories), reached through no symlink and no `..`.
    public func holds(_ relativePath: String) -> Bool {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, Self.isHexPair(parts[0]), Self.isHexPair(parts[1]),
            let leaf = try? leafDirectory(parts[0], parts[1], create: false),
            let info = leaf.status(of: parts[2])
        else { return false }
        return Self.isRegular(info)
    }

    /// Stores `bytes` (already checked to be an image of format `image`) and says where, and
    /// whether the file is new.
    ///
    /// A file already there under the same name is the same bytes and is kept as it is.
    public func put(_ bytes: [UInt8], image: PosterImage) throws(PosterStoreError) -> (StoredPoster, created: Bool) {
        let digest = SHA256.hex(bytes)
        let relative = Self.relativePath(sha256: digest, image: image)
        let stored = StoredPoster(sha256: digest, file: relative, bytes: bytes.count)
        let parts = relative.split(separator: "/").map(String.init)
        let leaf = try leafDirectory(parts[0], parts[1], create: true)
        if let info = leaf.status(of: parts[2]), Self.isRegular(info), Int(info.st_size) == bytes.count {
            return (stored, false)
        }
        // A symlink or anything else under the final name is replaced, never written through.
        if let reason = TemporaryFile.replace(parts[2], in: leaf.fd, with: bytes, mode: 0o644, sync: false) {
            throw .cannotWrite(path: path(of: relative), reason: reason)
        }
        return (stored, true)
    }

    /// The directory `first/second` under the root, made when `create` says so, opened without
    /// following a symlink at either step.
    private func leafDirectory(_ first: String, _ second: String, create: Bool) throws(PosterStoreError)
        -> DirectoryHandle
    {
        guard let upper = directory.subdirectory(first, create: create) else {
            throw .cannotCreate(path: path(of: first), reason: Self.openReason())
        }
        guard let leaf = upper.subdirectory(second, create: create) else {
            throw .cannotCreate(path: path(of: first + "/" + second), reason: Self.openReason())
        }
        return leaf
    }

    /// Why a directory in the tree could not be made or opened, in the system's words, a symlink named as such.
    private static func openReason() -> String {
        let code = errno
        if code == ELOOP || code == ENOTDIR { return "a symlink or not a directory (the store follows no symlink)" }
        return String(cString: strerror(code))
    }

    private static func isRegular(_ info: stat) -> Bool {
        (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Flushes every file written so far to disk (`syncfs(2)` on the store's file system).
    ///
    /// The flush waits for the disk (and for whatever else on that file system is unwritten), so
    /// it runs on a thread of its own: it never holds a thread of Swift's cooperative pool, where
    /// other posters are being written meanwhile.
    public func sync() async throws(PosterStoreError) {
        let (directory, root) = (directory, root)
        try await DispatchQueue.global().run { () throws(PosterStoreError) in
            guard fc_syncfs(directory.fd) == 0 else {
                throw .cannotWrite(path: root, reason: String(cString: strerror(errno)))
            }
        }
    }

    /// What ``prune(isReferenced:now:grace:)`` did.
    public struct PruneResult: Sendable, Equatable {
        /// Poster files no film references, removed.
        public var removed = 0
        /// Bytes those files held.
        package var removedBytes = 0
        /// Temporary files a killed run left, removed.
        package var temporaryRemoved = 0
        /// Files whose names are not the store's, left alone.
        package var foreign = 0
        /// Files kept (referenced, or too new to judge).
        public var kept = 0
    }

    /// Removes poster files `isReferenced` says no film uses, and temporary files left by a killed run.
    ///
    /// Files changed within `grace` of `now` are kept: a run storing posters at the same time
    /// writes its file before it commits the row that references it. Only regular files the store
    /// wrote are removed: under a name it gives (or a temporary name of its own), in its own
    /// `ab/cd` directories, with one link (the store never makes hard links). The walk follows no
    /// symlink: a symlink in the tree is left alone and counted as not the store's, and each file
    /// is removed relative to the directory it was judged in (`unlinkat`), so swapping a directory
    /// for a symlink while the walk runs removes nothing outside the store.
    public func prune(
        isReferenced: (_ sha256: String) async throws(StoreError) -> Bool, now: Date, grace: TimeInterval
    ) async throws(StoreError) -> PruneResult {
        var result = PruneResult()
        for first in directory.names() where Self.isHexPair(first) {
            guard let upper = directory.subdirectory(first) else {
                result.foreign += 1
                continue
            }
            for second in upper.names() where Self.isHexPair(second) {
                guard let leaf = upper.subdirectory(second) else {
                    result.foreign += 1
                    continue
                }
                for name in leaf.names() {
                    guard let info = leaf.status(of: name), Self.isRegular(info), info.st_nlink == 1 else {
                        result.foreign += 1
                        continue
                    }
                    let age = now.timeIntervalSince1970 - TimeInterval(info.st_mtim.tv_sec)
                    if TemporaryFile.isTemporary(name) {
                        if age > grace, leaf.remove(name) { result.temporaryRemoved += 1 } else { result.kept += 1 }
                        continue
                    }
                    guard let digest = Self.digest(ofFileNamed: name), digest.hasPrefix(first + second) else {
                        result.foreign += 1
                        continue
                    }
                    var referenced = age <= grace
                    if !referenced { referenced = try await isReferenced(digest) }
                    if referenced {
                        result.kept += 1
                    } else if leaf.remove(name) {
                        result.removed += 1
                        result.removedBytes += Int(info.st_size)
                    }
                }
                upper.removeDirectoryIfEmpty(second)
            }
            directory.removeDirectoryIfEmpty(first)
        }
        return result
    }

    /// The digest a store file name `<64 hex>.<ext>` carries, or `nil` when the name is not one.
    static func digest(ofFileNamed name: String) -> String? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 64, parts[0].allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
            PosterImage.allCases.contains(where: { $0.fileExtension == parts[1] })
        else { return nil }
        return String(parts[0])
    }

    private static func isHexPair(_ name: String) -> Bool {
        name.count == 2 && name.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}

/// A poster file in the store.
public struct StoredPoster: Sendable, Equatable {
    /// SHA-256 of its bytes, lowercase hex.
    public var sha256: String
    /// Its path relative to the store's root.
    public var file: String
    /// Its size.
    public var bytes: Int
}

/// The poster store's directory or a file in it could not be made or written.
public enum PosterStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case notADirectory(path: String)
    case cannotCreate(path: String, reason: String)
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .notADirectory(let path): "poster store \(path) is not a directory"
        case .cannotCreate(let path, let reason): "cannot create \(path): \(reason)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        }
    }
}
