import Foundation

/// Runs `filmcache` as an unprivileged user, so that file permissions apply to it.
///
/// The tests often run as root, and root writes to a `chmod 444` file as if it were writable.
/// As root, `setpriv(1)` drops to `nobody` (65534) for the one command; as anyone else the
/// command runs as is.
enum Unprivileged {
    /// The user (and group) id of `nobody`.
    static let nobody: UInt32 = 65_534
    /// Where Debian's util-linux puts setpriv.
    static let setpriv = "/usr/bin/setpriv"
    /// Whether the tests run as root.
    static var isRoot: Bool { getuid() == 0 }

    /// Why a permission test cannot run here, or `nil` when it can: as root, `nobody` must be able to run the binary.
    static let problem: String? = {
        guard isRoot else { return nil }
        guard FileManager.default.isExecutableFile(atPath: setpriv) else {
            return "running as root without \(setpriv): root ignores a read-only file mode, so it cannot be tested"
        }
        let out = try? ReliabilityProcess.run(
            setpriv, dropArguments + [BuiltBinaries.directory + "/filmcache", "--version"])
        guard let out, out.status == 0 else {
            return
                "user nobody cannot run \(BuiltBinaries.directory)/filmcache: \(out?.stderr ?? "setpriv did not start")"
        }
        return nil
    }()

    /// Whether `run` works here.
    static var isPossible: Bool { problem == nil }
    /// The reason shown for a skipped test.
    static var impossible: String { problem ?? "" }

    private static let dropArguments = ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups"]

    /// Gives `directory` and `file` to the unprivileged user and makes `file` read-only (0444).
    static func handOver(_ directory: String, readOnly file: String) throws {
        if isRoot {
            for path in [directory, file] where chown(path, nobody, nobody) != 0 {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
        guard chmod(file, 0o444) == 0 else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file])
        }
    }

    /// Runs the built `filmcache` with `arguments`, unprivileged, with only `environment` (and PATH and HOME).
    static func run(_ arguments: [String], environment: [String: String]) throws -> BuiltBinaries.Output {
        let filmcache = BuiltBinaries.directory + "/filmcache"
        guard isRoot else { return try ReliabilityProcess.run(filmcache, arguments, environment: environment) }
        return try ReliabilityProcess.run(setpriv, dropArguments + [filmcache] + arguments, environment: environment)
    }
}

/// A small tmpfs mounted for one test: a file system that can be made read-only or filled up.
final class ReliabilityMount {
    /// The mount point.
    let path: String

    /// mount(8).
    static let tool = ["/usr/bin/mount", "/bin/mount"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// umount(8).
    static let unmountTool = ["/usr/bin/umount", "/bin/umount"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Why no tmpfs can be mounted here (a trial mount failed), or `nil` when one can.
    static let problem: String? = {
        guard tool != nil, unmountTool != nil else { return "no mount(8) and umount(8) in /usr/bin or /bin" }
        let trial = NSTemporaryDirectory() + "filmcache-rel-mount-" + UUID().uuidString
        do {
            let mount = try ReliabilityMount(at: trial, size: "64k")
            mount.remove()
            return nil
        } catch {
            return "mount -t tmpfs is not permitted here (it needs root or CAP_SYS_ADMIN): \(error)"
        }
    }()

    /// Whether a tmpfs can be mounted here.
    static var isPossible: Bool { problem == nil }
    /// The reason shown for a skipped test.
    static var impossible: String { problem ?? "" }

    /// Creates `path` and mounts a tmpfs of `size` (as mount's `size=` option: `1m`, `64k`) on it.
    init(at path: String, size: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Self.mount(["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", path])
    }

    /// Makes the file system read-only, or writable again.
    func remount(readOnly: Bool) throws {
        try Self.mount(["-o", "remount," + (readOnly ? "ro" : "rw"), path])
    }

    /// Unmounts the file system (lazily, should a process still hold a file there) and removes the mount point.
    func remove() {
        _ = try? ReliabilityProcess.run(Self.unmountTool ?? "/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func mount(_ arguments: [String]) throws {
        let out = try ReliabilityProcess.run(tool ?? "/bin/mount", arguments)
        guard out.status == 0 else { throw MountError(arguments: arguments, stderr: out.stderr) }
    }

    /// mount(8) refused.
    struct MountError: Error, CustomStringConvertible {
        /// mount's arguments.
        var arguments: [String]
        /// What mount said.
        var stderr: String
        /// The command and its complaint.
        var description: String {
            "mount \(arguments.joined(separator: " ")): \(stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }
}
