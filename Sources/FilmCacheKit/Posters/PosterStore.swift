import CFilmCacheSystem
import Dispatch
import Foundation

/// The content-addressed directory posters are kept in: `ROOT/ab/<sha256>.<ext>`.
///
/// Stores made before kept files one level deeper, in `ROOT/ab/cd/`; those files stay where they
/// are and are read, judged and pruned as before (their rows name them there), and a poster
/// already stored there is not written again. Every new file goes one level up: 256 directories
/// in all, so a poster seldom needs a directory made for it (making one cost as much as the file).
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

    /// Where a poster with this digest and format lives, relative to the root: `ab/<sha256>.<ext>`.
    public static func relativePath(sha256: String, image: PosterImage) -> String {
        "\(sha256.prefix(2))/\(fileName(sha256: sha256, image: image))"
    }

    /// Where an earlier store kept it: `ab/cd/<sha256>.<ext>`.
    static func earlierRelativePath(sha256: String, image: PosterImage) -> String {
        "\(sha256.prefix(2))/\(sha256.dropFirst(2).prefix(2))/\(fileName(sha256: sha256, image: image))"
    }

    /// A poster's file name at either depth: `<sha256>.<ext>`.
    private static func fileName(sha256: String, image: PosterImage) -> String {
        "\(sha256).\(image.fileExtension)"
    }

    /// The absolute path of a file named relative to the root.
    public func path(of relativePath: String) -> String {
        root + "/" + relativePath
    }

    /// Whether the store holds a regular file at `relativePath` (`ab/<name>`, or an earlier store's
    /// `ab/cd/<name>`, hex-pair directories), reached through no symlink and no `..`.
    public func holds(_ relativePath: String) -> Bool {
        let parts = relativePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(parts.count), parts.dropLast().allSatisfy(Self.isHexPair),
            let upper = directory.subdirectory(parts[0])
        else { return false }
        let parent = parts.count == 2 ? upper : upper.subdirectory(parts[1])
        guard let info = parent?.status(of: parts[parts.count - 1]) else { return false }
        return Self.isRegular(info)
    }

    /// Stores `bytes` (already checked to be an image of format `image`) and says where, and
    /// whether the file is new.
    ///
    /// A file already there under the same name (or where an earlier store kept it) is the same
    /// bytes and is kept, its modification time made now: a prune running meanwhile judges it as
    /// new, within its grace, until the row naming it is committed.
    public func put(_ bytes: [UInt8], image: PosterImage) throws(PosterStoreError) -> (StoredPoster, created: Bool) {
        let digest = SHA256.hex(bytes)
        let relative = Self.relativePath(sha256: digest, image: image)
        let name = Self.fileName(sha256: digest, image: image)
        let first = String(digest.prefix(2))
        guard let upper = directory.subdirectory(first, create: true) else {
            throw .cannotCreate(path: path(of: first), reason: Self.openReason())
        }
        if Self.isWhole(upper.status(of: name), bytes: bytes.count) {
            upper.touch(name)
            return (StoredPoster(sha256: digest, file: relative, bytes: bytes.count), false)
        }
        if let leaf = upper.subdirectory(String(digest.dropFirst(2).prefix(2))),
            Self.isWhole(leaf.status(of: name), bytes: bytes.count)
        {
            leaf.touch(name)
            let earlier = Self.earlierRelativePath(sha256: digest, image: image)
            return (StoredPoster(sha256: digest, file: earlier, bytes: bytes.count), false)
        }
        // A symlink or anything else under the final name is replaced, never written through.
        if let reason = TemporaryFile.replace(name, in: upper.fd, with: bytes, mode: 0o644, sync: false) {
            throw .cannotWrite(path: path(of: relative), reason: reason)
        }
        return (StoredPoster(sha256: digest, file: relative, bytes: bytes.count), true)
    }

    /// Whether `info` is a regular file of `bytes` bytes (a stored poster under its own name).
    private static func isWhole(_ info: stat?, bytes: Int) -> Bool {
        guard let info else { return false }
        return isRegular(info) && Int(info.st_size) == bytes
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
    /// `ab` directories (or an earlier store's `ab/cd`), with one link (the store never makes hard
    /// links). The walk follows no symlink: a symlink in the tree is left alone and counted as not
    /// the store's, and each file is removed relative to the directory it was judged in
    /// (`unlinkat`), so swapping a directory for a symlink while the walk runs removes nothing
    /// outside the store.
    public func prune(
        isReferenced: (_ sha256: String) async throws(StoreError) -> Bool, now: Date, grace: TimeInterval
    ) async throws(StoreError) -> PruneResult {
        var result = PruneResult()
        for first in directory.names() where Self.isHexPair(first) {
            guard let upper = directory.subdirectory(first) else {
                result.foreign += 1
                continue
            }
            for name in upper.names() {
                guard Self.isHexPair(name) else {
                    try await Self.judge(name, in: upper, prefix: first, isReferenced, now, grace, &result)
                    continue
                }
                guard let leaf = upper.subdirectory(name) else {
                    result.foreign += 1
                    continue
                }
                for leafName in leaf.names() {
                    try await Self.judge(leafName, in: leaf, prefix: first + name, isReferenced, now, grace, &result)
                }
                upper.removeDirectoryIfEmpty(name)
            }
            directory.removeDirectoryIfEmpty(first)
        }
        return result
    }

    /// Judges the entry `name` of `parent`, a store directory whose files' digests start with
    /// `prefix`, and removes it when it is a temporary file older than `grace` or a poster no film
    /// references.
    private static func judge(
        _ name: String, in parent: DirectoryHandle, prefix: String,
        _ isReferenced: (_ sha256: String) async throws(StoreError) -> Bool, _ now: Date, _ grace: TimeInterval,
        _ result: inout PruneResult
    ) async throws(StoreError) {
        guard let info = parent.status(of: name), isRegular(info), info.st_nlink == 1 else {
            result.foreign += 1
            return
        }
        let age = now.timeIntervalSince1970 - TimeInterval(info.st_mtim.tv_sec)
        if TemporaryFile.isTemporary(name) {
            if age > grace, parent.remove(name) { result.temporaryRemoved += 1 } else { result.kept += 1 }
            return
        }
        guard let digest = digest(ofFileNamed: name), digest.hasPrefix(prefix) else {
            result.foreign += 1
            return
        }
        var referenced = age <= grace
        if !referenced { referenced = try await isReferenced(digest) }
        if referenced {
            result.kept += 1
        } else if parent.remove(name) {
            result.removed += 1
            result.removedBytes += Int(info.st_size)
        }
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
