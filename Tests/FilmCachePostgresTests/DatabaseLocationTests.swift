import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCachePostgres

/// `--db` and a job's `db`: a path, or a PostgreSQL URL with no password in it, the password found
/// the way libpq finds it.
@Suite struct DatabaseLocationTests {
    let dir = TemporaryDirectory()

    func postgres(_ value: String, user: String? = "ops") throws -> PostgresLocation {
        let location = try DatabaseLocation(parsing: value, environment: user.map { ["USER": $0] } ?? [:])
        guard case .postgres(let postgres) = location else {
            Issue.record("\(value) read as a path")
            throw DatabaseLocationError.invalidURL(url: value, reason: "test")
        }
        return postgres
    }

    @Test(arguments: [
        "out/filmcache.sqlite", "/var/cache/a.sqlite", "postgresql.sqlite", "films:2026.sqlite", ":memory:",
    ])
    func anythingButAPostgresURLIsAPath(_ value: String) throws {
        #expect(try DatabaseLocation(parsing: value) == .sqlite(path: value))
        #expect(try DatabaseLocation(parsing: value).displayName == value)
    }

    /// A PostgreSQL scheme in any case is a URL (RFC 3986), one slash short is a URL mistyped, and
    /// another scheme with `//` or an `@` is a URL of a database filmcache does not read: none is
    /// taken for a file, and no message shows the password.
    @Test(arguments: [
        "POSTGRESQL://fc:secret@h/db", "PostGres://fc:secret@h/db", "postgres:/fc:secret@h/db",
        "postgresql:fc:secret@h/db", "mysql://fc:secret@h/db", "mysql:fc:secret@h", " postgresql://fc:secret@h/db",
    ])
    func everyURLSpellingIsRecognisedAndItsPasswordNeverShown(_ value: String) {
        #expect(throws: DatabaseLocationError.self) { try DatabaseLocation(parsing: value) }
        do {
            _ = try DatabaseLocation(parsing: value)
        } catch {
            #expect(!error.description.contains("secret"), "\(error)")
            #expect(error.description.contains("***"), "\(error)")
        }
        #expect(DatabaseName.isURL(value))
    }

    @Test func aURLGivesUserHostPortDatabaseAndTLSMode() throws {
        #expect(
            try postgres("postgresql://filmcache@db.example:6432/cache?sslmode=verify-full")
                == PostgresLocation(
                    user: "filmcache", host: "db.example", port: 6432, database: "cache", sslMode: .verifyFull))
        let plain = try postgres("postgres://filmcache@10.0.0.5/cache")
        #expect(plain == PostgresLocation(user: "filmcache", host: "10.0.0.5", port: 5432, database: "cache"))
        #expect(plain.sslMode == .prefer)
        #expect(plain.displayName == "postgresql://filmcache@10.0.0.5:5432/cache")
        let v6 = try postgres("postgresql://u@[::1]:5433/d?sslmode=disable")
        #expect(v6.host == "::1" && v6.port == 5433 && v6.displayName == "postgresql://u@[::1]:5433/d?sslmode=disable")
        let escaped = try postgres("postgresql://film%20cache@h/my%2Fdb")
        #expect(escaped.user == "film cache" && escaped.database == "my/db")
        #expect(escaped.displayName == "postgresql://film%20cache@h:5432/my%2Fdb")
    }

    @Test func withNoUserTheURLMeansUSERAndWithoutUSERItIsRefused() throws {
        #expect(try postgres("postgresql://db.example/cache", user: "alice").user == "alice")
        #expect(throws: DatabaseLocationError.self) { try postgres("postgresql://db.example/cache", user: nil) }
    }

    @Test(arguments: [
        "postgresql://filmcache:s3cr3t-Pa55@db.example/cache", "postgres://filmcache:s3cr3t-Pa55@db.example:5432/cache",
        "postgresql://filmcache:s3cr3t/Pa55@db.example/cache",
        "postgresql://filmcache@db.example/cache?password=s3cr3t-Pa55",
        "postgresql://filmcache:s3cr3t@Pa55@db.example/cache",
    ])
    func aPasswordInTheURLIsRefusedWithoutShowingIt(_ value: String) throws {
        do {
            _ = try DatabaseLocation(parsing: value, environment: [:])
            Issue.record("accepted \(value)")
        } catch {
            guard case .passwordInURL(let url) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(!"\(error)".contains("s3cr3t") && !"\(error)".contains("Pa55"), "\(error)")
            #expect(url.contains("***") && "\(error)".contains("db_password_file"))
        }
    }

    @Test(arguments: [
        ("postgresql://u@/cache", "no host"), ("postgresql://u@h:99999/cache", "port"),
        ("postgresql://u@h:x/c", "port"),
        ("postgresql://u@h", "no database"), ("postgresql://u@h/", "no database"),
        ("postgresql://u@h/c?sslmode=maybe", "sslmode"), ("postgresql://u@h/c?application_name=x", "unknown parameter"),
        ("postgresql://u@[::1/c", "closing ]"),
    ])
    func aURLThatIsNotOneSaysWhy(_ value: String, _ reason: String) throws {
        #expect {
            try DatabaseLocation(parsing: value, environment: [:])
        } throws: { error in
            "\(error)".contains(reason) && "\(error)".contains("postgresql://USER@HOST:PORT/DBNAME")
        }
    }

    // MARK: - The password

    let location = PostgresLocation(user: "filmcache", host: "db.example", port: 5432, database: "cache")

    @discardableResult
    func passFile(_ text: String, mode: mode_t = 0o600) -> String {
        let path = dir.write(".pgpass", text)
        chmod(path, mode)
        return path
    }

    @Test func theJobsPasswordFileComesFirstThenPGPASSWORDThenThePassFile() throws {
        let file = dir.write("db-password", "from-file\n")
        let pass = passFile("*:*:*:*:from-pgpass\n")
        let environment = ["PGPASSWORD": "from-env", "PGPASSFILE": pass]
        var warnings: [String] = []
        #expect(try location.password(file: file, environment: environment) { warnings.append($0) } == "from-file")
        #expect(try location.password(file: nil, environment: environment) { warnings.append($0) } == "from-env")
        #expect(
            try location.password(file: nil, environment: ["PGPASSFILE": pass]) { warnings.append($0) } == "from-pgpass"
        )
        #expect(
            try location.password(file: nil, environment: ["HOME": dir.path]) { warnings.append($0) } == "from-pgpass")
        #expect(
            try location.password(file: nil, environment: ["HOME": dir.path + "/none"]) { warnings.append($0) } == nil)
        #expect(warnings.isEmpty)
        #expect(
            throws: DatabaseLocationError.passwordFile(path: dir.file("absent"), reason: "No such file or directory")
        ) {
            try location.password(file: dir.file("absent"), environment: [:]) { _ in }
        }
        let empty = dir.write("empty", "\n")
        #expect(throws: DatabaseLocationError.passwordFile(path: empty, reason: "it is empty")) {
            try location.password(file: empty, environment: [:]) { _ in }
        }
    }

    @Test func thePassFileMatchesItsFirstLineForThisLocationWithWildcardsAndEscapes() throws {
        let pass = passFile(
            """
            # comment
            other.example:5432:cache:filmcache:wrong-host
            db.example:6432:cache:filmcache:wrong-port
            db.example:5432:*:reader:wrong-user
            db.example:*:cache:filmcache:p\\:ss\\\\word:with:colons
            *:*:*:*:too-late
            """)
        #expect(
            try location.password(file: nil, environment: ["PGPASSFILE": pass]) { _ in } == #"p:ss\word:with:colons"#)
        var other = location
        other.user = "someone"
        #expect(try other.password(file: nil, environment: ["PGPASSFILE": pass]) { _ in } == "too-late")
        #expect(PassFile.fields(of: #"h\:x:1:d:u:pw"#) == ["h:x", "1", "d", "u", "pw"])
    }

    @Test func aPassFileOthersCanReadIsIgnoredWithAWarningLikeLibpqDoes() throws {
        let pass = passFile("*:*:*:*:secret\n", mode: 0o644)
        var warnings: [String] = []
        #expect(try location.password(file: nil, environment: ["PGPASSFILE": pass]) { warnings.append($0) } == nil)
        #expect(warnings.count == 1 && warnings[0].contains(pass) && warnings[0].contains("0600"))
        #expect(!warnings[0].contains("secret"))
    }
}
