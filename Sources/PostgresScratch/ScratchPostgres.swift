import Foundation
import Synchronization

/// A throwaway PostgreSQL 15 server for tests: its own cluster in a temporary directory, listening on
/// a free loopback port with password (SCRAM) authentication, and gone when the process ends.
///
/// The server refuses to run as root, so a root process runs the server's programs as the
/// `postgres` user (`runuser`), which owns the directory. A process that ends normally stops every
/// server it started (`atexit`); a watcher process stops it too should the test process die.
///
/// ```swift
/// let server = try ScratchPostgres.shared()
/// let db = try server.createDatabase()   // postgresql://filmcache@127.0.0.1:PORT/t_1, server.password
/// ```
package final class ScratchPostgres: Sendable {
    /// The login role tests connect as; it owns every database ``createDatabase()`` makes.
    public let role = "filmcache"
    /// The role's password.
    public let password: String
    /// The port the server listens on.
    public let port: Int
    /// The address the server listens on besides 127.0.0.1, if any (see ``init(binaries:alsoListeningOn:)``).
    package let extraAddress: String?
    /// The temporary directory holding the cluster, its log and its socket.
    public let directory: String
    private let binaries: String
    private let databases = Mutex(0)

    /// The server this process shares between its tests, started on first use.
    public static func shared() throws(ScratchError) -> ScratchPostgres {
        try sharedServer.withLock { (server: inout ScratchPostgres?) throws(ScratchError) -> ScratchPostgres in
            if let server { return server }
            let started = try ScratchPostgres()
            server = started
            return started
        }
    }

    private static let sharedServer = Mutex<ScratchPostgres?>(nil)

    /// Makes a cluster in a new temporary directory and starts a server on it.
    ///
    /// `binaries` is the directory of `initdb`, `pg_ctl` and `psql`: `FILMCACHE_PG_BIN`, else Debian's
    /// `/usr/lib/postgresql/15/bin`. `alsoListeningOn`, an address of this host (a bridge's, so that
    /// processes in other network namespaces reach the server as other hosts would) with the network
    /// its clients come from, is listened on too, with the same password authentication as loopback;
    /// the address must exist before the server starts.
    public init(binaries: String? = nil, alsoListeningOn extra: (address: String, clients: String)? = nil)
        throws(ScratchError)
    {
        let bin =
            binaries ?? ProcessInfo.processInfo.environment["FILMCACHE_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"
        for program in ["initdb", "pg_ctl", "psql"]
        where !FileManager.default.isExecutableFile(atPath: "\(bin)/\(program)") {
            throw .missing(
                "\(bin)/\(program) not found: the PostgreSQL 15 server is needed for these tests"
                    + " (Debian package postgresql; Scripts/install-deps.sh installs it)")
        }
        self.binaries = bin
        extraAddress = extra?.address
        password = (0..<4).map { _ in String(UInt32.random(in: .min ... .max), radix: 16) }.joined()
        let directory = try Self.makeDirectory()
        self.directory = directory
        Self.cleanup.withLock { $0.append(directory) }
        Self.registerExitHandler()
        port = try Self.freePort()
        try run(
            "initdb", "-D", "\(directory)/data", "-U", "postgres", "--auth-local=trust",
            "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync")
        try Self.write(
            """
            listen_addresses = '\((["127.0.0.1"] + (extra.map { [$0.address] } ?? [])).joined(separator: ","))'
            port = \(port)
            unix_socket_directories = '\(directory)'
            fsync = off
            synchronous_commit = off
            full_page_writes = off
            max_connections = 200
            log_min_messages = warning

            """, appendingTo: "\(directory)/data/postgresql.conf")
        if let extra {
            try Self.write(
                "host all all \(extra.clients) scram-sha-256\n", appendingTo: "\(directory)/data/pg_hba.conf")
        }
        try watch()
        try start()
        try sql("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
    }

    /// The URL of `database` on this server at `host` (loopback unless given), as the role (no
    /// password in it).
    public func url(database: String, host: String = "127.0.0.1") -> String {
        "postgresql://\(role)@\(host):\(port)/\(database)"
    }

    /// Creates a new, empty database owned by ``role``: `t_1`, `t_2`, … Its URL is ``url(database:)``.
    package func createDatabase() throws(ScratchError) -> String {
        let name =
            "t_"
            + String(
                databases.withLock {
                    $0 += 1; return $0
                })
        try sql("CREATE DATABASE \(name) OWNER \(role)")
        return name
    }

    /// Runs `statement` as the superuser (over the socket) in `database`; returns psql's unaligned output.
    @discardableResult
    public func sql(_ statement: String, database: String = "postgres") throws(ScratchError) -> String {
        try Self.run(psql(database: database, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", statement))
    }

    /// The command line of `psql` as the superuser over the socket, into `database`, with `arguments`.
    func psql(database: String, _ arguments: String...) -> [String] {
        Self.asServerUser(
            ["\(binaries)/psql", "-h", directory, "-p", String(port), "-U", "postgres", "-d", database] + arguments)
    }

    /// Starts the server (it starts on init); waits until it accepts connections.
    public func start() throws(ScratchError) {
        try run("pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/server.log", "-w", "-t", "60", "start")
    }

    /// Stops the server fast (open connections are ended), waiting until it is down.
    public func stop() throws(ScratchError) {
        try run("pg_ctl", "-D", "\(directory)/data", "-w", "-t", "60", "stop", "-m", "fast")
    }

    /// Stops and starts the server again, on the same port and with the same databases.
    public func restart() throws(ScratchError) {
        try run(
            "pg_ctl", "-D", "\(directory)/data", "-l", "\(directory)/server.log", "-w", "-t", "60", "restart", "-m",
            "fast")
    }

    /// Stops every process of the server (SIGSTOP to the postmaster and its children) without
    /// closing a connection: a server that has stopped answering, as a frozen or cut-off host is.
    package func freeze() throws(ScratchError) { try signalServer(SIGSTOP) }

    /// Lets a frozen server go on (SIGCONT).
    package func thaw() throws(ScratchError) { try signalServer(SIGCONT) }

    /// Sends `signal` to the postmaster (the first line of `postmaster.pid`) and to its children.
    private func signalServer(_ signal: Int32) throws(ScratchError) {
        guard let text = try? String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8),
            let line = text.split(separator: "\n").first, let postmaster = pid_t(line)
        else { throw .failed("no postmaster.pid in \(directory)/data: the server is not running") }
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap {
            entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // pid (comm) state ppid …: the command name may hold spaces and parentheses.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == postmaster ? pid : nil
        }
        for pid in [postmaster] + children where kill(pid, signal) != 0 && errno != ESRCH {
            throw .failed("cannot signal server process \(pid): \(String(cString: strerror(errno)))")
        }
    }

    /// Stops the server and removes its directory; the server is not used after.
    public func remove() {
        Self.cleanup.withLock { $0.removeAll { $0 == directory } }
        Self.removeNow(directory: directory, binaries: binaries)
    }

    // MARK: - Processes

    /// Runs one of the server's programs as the `postgres` user (as it is, when not root); its output.
    @discardableResult
    private func run(_ program: String, _ arguments: String...) throws(ScratchError) -> String {
        try Self.run(Self.asServerUser(["\(binaries)/\(program)"] + arguments))
    }

    /// `command` run as the user owning the cluster.
    private static func asServerUser(_ command: [String]) -> [String] {
        getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command
    }

    /// Runs `command` from `/` (so the programs never trip over a directory the postgres user cannot
    /// read), waiting for it; its standard output, or an error with its standard error.
    ///
    /// Spawned and reaped here (`posix_spawn`, `waitpid`), output through files: Foundation's
    /// `Process` can miss the exit of a `runuser` whose grandchild (the server) lives on.
    private static func run(_ command: [String]) throws(ScratchError) -> String {
        let shown = command.joined(separator: " ")
        let base = NSTemporaryDirectory() + "filmcache-pg-run-\(getpid())-\(UInt64.random(in: .min ... .max))"
        let (outPath, errorPath) = (base + ".out", base + ".err")
        defer {
            unlink(outPath)
            unlink(errorPath)
        }
        guard let pid = spawn(command, stdout: outPath, stderr: errorPath) else {
            throw .command(shown, status: -1, output: String(cString: strerror(errno)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        let exit = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
        guard exit == 0 else { throw .command(shown, status: exit, output: read(errorPath) + read(outPath)) }
        return read(outPath).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `command` from `/`, standard input from /dev/null and output to the files named (or
    /// /dev/null); its process id, or `nil` (errno set) when it could not start.
    private static func spawn(_ command: [String], stdout: String = "/dev/null", stderr: String = "/dev/null")
        -> pid_t?
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        closeTheRest(&actions)
        let argv = (["/bin/sh", "-c", #"cd / && exec "$@""#, "sh"] + command).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        guard result == 0 else {
            errno = result
            return nil
        }
        return pid
    }

    /// Has the child close every descriptor past standard error. Foundation's `Process` learns that
    /// a child of its own ended when the child's end of a socket closes: a server or a watcher that
    /// inherited that end keeps it open as long as it lives (the shared server, the whole test run),
    /// and `waitUntilExit` on that child then never returns.
    private static func closeTheRest(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        // glibc 2.34 and later; not in the Swift overlay, so found by name.
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    /// A new directory under the system's temporary directory, owned by the server's user, 0700.
    private static func makeDirectory() throws(ScratchError) -> String {
        var template = Array((NSTemporaryDirectory() + "filmcache-pg-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .command("mkdtemp", status: errno, output: String(cString: strerror(errno)))
        }
        let path = String(cString: made)
        try chown(path)
        return path
    }

    /// Gives `path` to the `postgres` user when this process is root.
    private static func chown(_ path: String) throws(ScratchError) {
        guard getuid() == 0 else { return }
        guard let user = getpwnam("postgres") else {
            throw .missing("no postgres user: install the Debian package postgresql")
        }
        guard Foundation.chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw .command("chown \(path)", status: errno, output: String(cString: strerror(errno)))
        }
    }

    /// Appends `text` to the file at `path`.
    private static func write(_ text: String, appendingTo path: String) throws(ScratchError) {
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw .command("append to \(path)", status: -1, output: "cannot open the file")
        }
        defer { try? handle.close() }
        do {
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw .command("append to \(path)", status: -1, output: "\(error)")
        }
    }

    /// A loopback TCP port no socket holds right now.
    private static func freePort() throws(ScratchError) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .command("socket", status: errno, output: String(cString: strerror(errno))) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else { throw .command("bind 127.0.0.1:0", status: errno, output: String(cString: strerror(errno))) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    // MARK: - Clean-up

    /// Directories of servers still running, stopped and removed when the process exits.
    private static let cleanup = Mutex<[String]>([])
    private static let exitHandler = Mutex(false)

    private static func registerExitHandler() {
        exitHandler.withLock { registered in
            guard !registered else { return }
            registered = true
            atexit {
                let directories = ScratchPostgres.cleanup.withLock { $0 }
                let bin = ProcessInfo.processInfo.environment["FILMCACHE_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"
                for directory in directories { ScratchPostgres.removeNow(directory: directory, binaries: bin) }
            }
        }
    }

    /// Starts a watcher that stops the server and removes its directory once this process is gone.
    private func watch() throws(ScratchError) {
        let stop = Self.stopScript(directory: directory, binaries: binaries)
        let script = "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; \(stop)"
        guard Self.spawn(["/bin/sh", "-c", script]) != nil else {
            throw .command("/bin/sh (watcher)", status: errno, output: String(cString: strerror(errno)))
        }
    }

    /// Shell commands that stop the server at once and remove its directory.
    private static func stopScript(directory: String, binaries: String) -> String {
        let pgctl = asServerUser(["\(binaries)/pg_ctl", "-D", "\(directory)/data", "stop", "-m", "immediate"])
            .map { "'\($0)'" }.joined(separator: " ")
        return "\(pgctl) >/dev/null 2>&1; rm -rf '\(directory)'"
    }

    /// Stops the server in `directory` and removes the directory, waiting for both.
    private static func removeNow(directory: String, binaries: String) {
        _ = try? run(["/bin/sh", "-c", stopScript(directory: directory, binaries: binaries)])
    }
}

/// Why a scratch server could not be made or driven.
package enum ScratchError: Error, CustomStringConvertible {
    /// The server's programs or user are missing.
    case missing(String)
    /// A command failed: what ran, its exit status, its standard error (then output).
    case command(String, status: Int32, output: String)
    /// Anything else, said in a sentence.
    case failed(String)

    public var description: String {
        switch self {
        case .missing(let message), .failed(let message): message
        case .command(let command, let status, let output): "\(command) failed (status \(status)): \(output)"
        }
    }
}
