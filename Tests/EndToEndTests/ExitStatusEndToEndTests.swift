import Foundation
import Testing

/// The exit statuses cron and systemd act on, from the built binary, each with a message that says why.
@Suite struct ExitStatusEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-exit-" + UUID().uuidString
    let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
    let environment = ["OMDB_API_KEY": "test-key-e2e"]

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    /// A loopback port nothing listens on: bound, then closed again.
    func closedPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func omdbUnreachableExits69AndSpendsNothingTwice() throws {
        let db = dir + "/unreachable.sqlite"
        let out = try BuiltBinaries.run(
            "filmcache",
            [
                "warm", "--db", db, "--rate", "0", "--max-attempts", "1", "--breaker-stop-after", "3",
                "--breaker-pause-after", "3", "--base-url", "http://127.0.0.1:\(closedPort())/", watchlist,
            ], environment: environment)
        #expect(out.status == 69, "\(out.stderr)")
        #expect(out.stderr.contains("OMDb unreachable"), "\(out.stderr)")
        #expect(try BuiltBinaries.sqlite(db, "SELECT count(*) FROM films") == "0")
        #expect(!out.stderr.contains("test-key-e2e"))
    }

    @Test func aFileThatIsNotSQLiteExits74NamingItAndIsLeftAlone() throws {
        let db = dir + "/notes.sqlite"
        let text = String(repeating: "not a database, somebody's notes\n", count: 200)
        try text.write(toFile: db, atomically: true, encoding: .utf8)
        let commands = [
            ["warm", "--db", db, "--rate", "0", "--base-url", "http://127.0.0.1:9/", watchlist],
            ["plan", "--db", db, watchlist], ["stats", "--db", db], ["quota", "--db", db],
        ]
        for command in commands {
            let out = try BuiltBinaries.run("filmcache", command, environment: environment)
            #expect(out.status == 74, "\(command): \(out.stderr)")
            #expect(out.stderr.contains(db), "\(command) names the file: \(out.stderr)")
        }
        #expect(try String(contentsOfFile: db, encoding: .utf8) == text, "the file is untouched")
    }

    /// Why a mount namespace of the test's own cannot be made here (`unshare -m` needs root), or `nil`.
    static let mountNamespaces: String? = {
        guard let probe = try? ReliabilityProcess.run("/usr/bin/unshare", ["-m", "/bin/true"]) else {
            return "/usr/bin/unshare (util-linux) cannot be run"
        }
        return probe.status == 0 ? nil : "unshare -m failed (root is needed): \(probe.stderr)"
    }()

    /// libcurl is loaded when a command that fetches makes its transport, not at start. With it unreadable (/dev/null mounted over it
    /// in a mount namespace of the test's own, private, so nothing outside sees it), a warm exits 72 naming
    /// it before it spends a call, and the commands that fetch nothing run as before.
    @Test(.enabled(if: Self.mountNamespaces == nil, Comment(rawValue: Self.mountNamespaces ?? "")))
    func withoutLibcurlAWarmExits72NamingItAndCommandsThatFetchNothingRun() async throws {
        try await offThePool { try withoutLibcurlChecks() }
    }

    /// Runs the built filmcache with `arguments` in a mount namespace of its own where the library
    /// `soname` (the file ldconfig's cache names for it, behind its symbolic link) is /dev/null.
    private func without(_ soname: String, _ arguments: [String], environment: [String: String]) throws
        -> BuiltBinaries.Output
    {
        let hidden =
            "lib=$(/sbin/ldconfig -p | awk '$1 == \"\(soname)\" { print $NF; exit }') && [ -n \"$lib\" ]"
            + " && mount --bind /dev/null \"$(readlink -f \"$lib\")\" && exec \"$@\""
        let filmcache = BuiltBinaries.directory + "/filmcache"
        let inNamespace = ["-m", "--propagation", "private", "/bin/sh", "-c", hidden, "sh", filmcache]
        return try ReliabilityProcess.run("/usr/bin/unshare", inNamespace + arguments, environment: environment)
    }

    private func withoutLibcurlChecks() throws {
        let db = dir + "/no-libcurl.sqlite"
        func withoutLibcurl(_ arguments: [String]) throws -> BuiltBinaries.Output {
            try without("libcurl.so.4", arguments, environment: environment)
        }
        let warm = try withoutLibcurl([
            "warm", "--db", db, "--rate", "0", "--base-url", "http://127.0.0.1:9/", watchlist,
        ])
        #expect(warm.status == 72, "\(warm.stderr)")
        #expect(warm.stderr.contains("libcurl could not be loaded"), "\(warm.stderr)")
        #expect(warm.stderr.contains("libcurl.so.4"), "names the library: \(warm.stderr)")
        #expect(!warm.stderr.contains("test-key-e2e"))
        #expect(try BuiltBinaries.sqlite(db, "SELECT count(*) FROM quota_ledger") == "0", "no call was counted")
        for command in [["quota", "--db", db], ["plan", "--db", db, watchlist], ["stats", "--db", db]] {
            let out = try withoutLibcurl(command)
            #expect(out.status == 0, "\(command[0]) without libcurl: \(out.stderr)")
            #expect(!out.stderr.contains("libcurl"), "\(command[0]): \(out.stderr)")
        }
        let version = try withoutLibcurl(["--version"])
        #expect(version.status == 0 && !version.stdout.isEmpty, "\(version.stderr)")
    }

    /// libcrypto is loaded when a key or a poster is first named (its PBKDF2 and SHA-256), not at start.
    /// Without it, a warm exits 72 naming it before it counts or spends a call, and the commands that name
    /// no key run as before.
    @Test(.enabled(if: Self.mountNamespaces == nil, Comment(rawValue: Self.mountNamespaces ?? "")))
    func withoutLibcryptoAWarmExits72NamingItAndCommandsThatNameNoKeyRun() async throws {
        try await offThePool {
            let db = dir + "/unkeyed.sqlite"
            let warm = try without(
                "libcrypto.so.3", ["warm", "--db", db, "--rate", "0", "--base-url", "http://127.0.0.1:9/", watchlist],
                environment: environment)
            #expect(warm.status == 72, "\(warm.stderr)")
            #expect(warm.stderr.contains("libcrypto could not be loaded"), "\(warm.stderr)")
            #expect(warm.stderr.contains("libcrypto.so.3"), "names the library: \(warm.stderr)")
            #expect(!warm.stderr.contains("test-key-e2e"))
            // It names the key before it opens the cache: nothing was created, nothing counted.
            #expect(!FileManager.default.fileExists(atPath: db), "the warm left \(db)")
            for command in [
                ["quota", "--db", db], ["plan", "--db", db, watchlist], ["show", "--db", db, "tt0100044"],
            ] {
                let out = try without("libcrypto.so.3", command, environment: [:])
                #expect([0, 1].contains(out.status), "\(command[0]) without libcrypto: \(out.stderr)")
                #expect(!out.stderr.contains("libcrypto"), "\(command[0]): \(out.stderr)")
            }
            let keyed = try without("libcrypto.so.3", ["quota", "--db", db], environment: environment)
            #expect(keyed.status == 72 && keyed.stderr.contains("libcrypto.so.3"), "\(keyed.stderr)")
        }
    }
}
