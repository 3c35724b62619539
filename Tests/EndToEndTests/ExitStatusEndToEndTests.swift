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
}
