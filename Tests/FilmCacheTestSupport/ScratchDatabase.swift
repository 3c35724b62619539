import FilmCacheKit
import FilmCachePostgres
import Foundation
import Logging
import PostgresScratch

/// The scratch PostgreSQL server of this test process and its databases.
package enum Scratch {
    /// A new empty database on the shared scratch server.
    package static func database() throws -> ScratchDatabase {
        let server = try ScratchPostgres.shared()
        return ScratchDatabase(server: server, name: try server.createDatabase())
    }
}

/// One database on a scratch server.
package struct ScratchDatabase: Sendable {
    package let server: ScratchPostgres
    package let name: String

    /// The database `name` on `server`.
    package init(server: ScratchPostgres, name: String) {
        self.server = server
        self.name = name
    }

    /// The database's location, as `--db` would name it.
    package var location: PostgresLocation {
        guard case .postgres(let location) = try! DatabaseLocation(parsing: server.url(database: name)) else {
            fatalError("a scratch URL is a PostgreSQL URL")
        }
        return location
    }

    /// Runs `statement` as the superuser in this database.
    @discardableResult
    package func sql(_ statement: String) throws -> String { try server.sql(statement, database: name) }

    /// Makes every unfinished run's lease pass.
    package func expireRunLeases() throws {
        try sql("UPDATE runs SET lease_until = now() - interval '1 second' WHERE finished_at IS NULL")
    }

    /// Opens the database, runs `body` and closes it.
    package func withBackend<T: Sendable>(readOnly: Bool = false, _ body: (PostgresBackend) async throws -> T)
        async throws
        -> T
    {
        try await PostgresBackend.withBackend(
            location, password: server.password, time: .system, logger: SampleFilms.logger, readOnly: readOnly, body)
    }
}

/// A quota day in UTC by its key.
package func day(_ key: String) -> QuotaDay { QuotaDay(key: key)! }

/// An instant in UTC.
package func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: 0)!
    return calendar.date(
        from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
}
