import FilmCachePostgres
import Foundation
import PostgresScratch
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// The scratch server the PostgreSQL tests run on: it starts, takes the role's password over TCP,
/// and gives every test a database of its own.
@Suite(.timeLimit(.minutes(3))) struct ScratchServerTests {
    @Test func theSharedServerTakesTheRoleOverTCPWithItsPassword() async throws {
        let database = try Scratch.database()
        #expect(database.server.url(database: database.name).hasPrefix("postgresql://filmcache@127.0.0.1:"))
        #expect(!database.server.url(database: database.name).contains(database.server.password))
        let version = try await database.withBackend { backend in try await backend.schemaVersion() }
        #expect(version == Schema.currentVersion)
        #expect(try database.sql("SELECT current_setting('server_version_num')::int / 10000") == "15")
    }

    @Test func aBackendOpenedForACommandsLifeWorksUntilClosed() async throws {
        let database = try Scratch.database()
        let backend = try await PostgresBackend.open(
            database.location, password: database.server.password, time: .system, logger: SampleFilms.logger)
        #expect(backend.displayName == database.location.displayName && backend.sharesPlanBetweenWarms)
        try await backend.write(WriteBatch(films: [SampleFilms.film("tt0000001")]))
        #expect(try await backend.filmCount() == 1)
        await backend.close()
        await backend.close()
        await #expect(throws: StoreError.self) { _ = try await backend.filmCount() }
        // The pool's connections are gone (the server's backends end a moment after their clients hang up).
        let query =
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'filmcache'"
        var open = ""
        for _ in 0..<100 {
            open = try database.sql(query)
            if open == "0" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(open == "0", "the pool's connections are left open after close")
    }

    @Test func aServerHoldsNoneOfTheDescriptorsOfTheProcessThatStartedIt() throws {
        // A descriptor open while the server starts, as Foundation's socket to a child it waits on is:
        // a server holding it for its whole life would keep that child's end from being seen.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        var info = stat()
        #expect(fstat(ends[0], &info) == 0)
        let server = try ScratchPostgres()
        defer { server.remove() }
        let pidFile = try String(contentsOfFile: server.directory + "/data/postmaster.pid", encoding: .utf8)
        let pid = try #require(pidFile.split(separator: "\n").first.map(String.init))
        let held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
        #expect(!held.isEmpty, "the server's descriptors are readable")
        #expect(!held.contains("pipe:[\(info.st_ino)]"), "\(held)")
    }

    @Test func eachDatabaseIsNewAndEmpty() throws {
        let first = try Scratch.database()
        let second = try Scratch.database()
        #expect(first.name != second.name)
        #expect(try second.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0")
    }
}
