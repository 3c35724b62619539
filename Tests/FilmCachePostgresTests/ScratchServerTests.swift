import FilmCachePostgres
import Foundation
import PostgresScratch
import Testing

@testable import FilmCacheKit

/// The scratch server the PostgreSQL tests run on: it starts, takes the role's password over TCP,
/// and gives every test a database of its own.
@Suite struct ScratchServerTests {
    @Test func theSharedServerTakesTheRoleOverTCPWithItsPassword() async throws {
        let database = try Scratch.database()
        #expect(database.server.url(database: database.name).hasPrefix("postgresql://filmcache@127.0.0.1:"))
        #expect(!database.server.url(database: database.name).contains(database.server.password))
        let version = try await database.withBackend { backend in try await backend.schemaVersion() }
        #expect(version == Schema.currentVersion)
        #expect(try database.sql("SELECT current_setting('server_version_num')::int / 10000") == "15")
    }

    @Test func eachDatabaseIsNewAndEmpty() throws {
        let first = try Scratch.database()
        let second = try Scratch.database()
        #expect(first.name != second.name)
        #expect(try second.sql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0")
    }
}
