import Foundation
import Testing

extension Reliability {
    /// Aliases of one database file: a symlink shares the one run lock, a hard link, `:memory:`,
    /// a `file:` URI or a dangling symlink is refused before anything is opened or sent.
    @Suite struct DatabaseNameTests {
        /// The test's directory and database.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("dbname")
        }

        /// A database that exists: one quota call run against it creates nothing, so a warm of one ID does.
        func createDatabase() throws {
            _ = try scratch.sqlite("CREATE TABLE IF NOT EXISTS placeholder(x)")
        }

        @Test func aWarmThroughASymlinkWaitsForTheWarmThroughTheRealName() throws {
            let standIn = try StandInProcess(arguments: ["--latency-ms", "100"])
            let list = try scratch.worklist("six.txt", GeneratedIDs.first(6))
            let alias = scratch.dir + "/alias.sqlite"
            try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: scratch.db)
            let slow = ["--base-url", standIn.baseURL, "--rate", "2", "--burst", "1", "--max-in-flight", "1"]
            let first = try BackgroundRun(
                "filmcache", ["warm", "--db", scratch.db] + slow + [list], environment: ["OMDB_API_KEY": key])
            let lockPath = scratch.db + ".lock"
            try waitFor("the first warm takes the lock", seconds: 30, every: 0.02, while: first.isRunning) {
                (try? String(contentsOfFile: lockPath, encoding: .utf8)) == "\(first.pid)\n"
            }
            // The first warm stays busy, however loaded the machine, until the second has tried.
            try standIn.setBehaviour("latency-ms=5000")
            let second = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", alias] + slow + [list], environment: ["OMDB_API_KEY": key])
            #expect(first.isRunning, "the first warm was still busy")
            try standIn.setBehaviour("latency-ms=0")
            #expect(second.status == 75, "\(second.stderr)")
            #expect(second.stderr.contains("another warm holds \(lockPath)"), "\(second.stderr)")
            #expect(!FileManager.default.fileExists(atPath: alias + ".lock"), "no second lock beside the alias")
            #expect(first.wait().status == 0)
            #expect(try scratch.sqlite("SELECT count(*) FROM films") == "6")
        }

        @Test(arguments: ["warm", "plan", "quota", "stats", "show"])
        func aDatabaseWithASecondHardLinkIsRefusedNamingTheLinkCount(command: String) throws {
            try createDatabase()
            try FileManager.default.linkItem(atPath: scratch.db, toPath: scratch.dir + "/other.sqlite")
            let list = try scratch.worklist("one.txt", GeneratedIDs.first(1))
            let arguments: [String] =
                switch command {
                case "warm": ["warm", "--db", scratch.db, "--base-url", "http://127.0.0.1:1/", list]
                case "show": ["show", "--db", scratch.db, GeneratedIDs.first(1)[0]]
                case "quota": ["quota", "--db", scratch.db]
                default: [command, "--db", scratch.db, list]
                }
            let out = try BuiltBinaries.run("filmcache", arguments, environment: ["OMDB_API_KEY": key])
            #expect(out.status == 78, "\(command): \(out.stderr)")
            #expect(out.stderr.contains("\(scratch.db) has 2 hard links"), "\(command): \(out.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.db + "-wal"), "nothing was opened")
        }

        @Test(arguments: [":memory:", "file::memory:", "file:///etc/passwd#", "FILE:cache.sqlite?mode=memory"])
        func aDatabaseThatNamesNoFileIsRefusedOnTheFlagAndInAJobFile(database: String) throws {
            let list = try scratch.worklist("one.txt", GeneratedIDs.first(1))
            let flag = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", database, "--base-url", "http://127.0.0.1:1/", list],
                environment: ["OMDB_API_KEY": key])
            #expect(flag.status == 64, "\(database): \(flag.stderr)")
            #expect(flag.stderr.contains("'\(database)' is not a file path"), "\(flag.stderr)")
            let job = try scratch.write(
                "job.toml", Array("worklists = [\"\(list)\"]\ndb = \"\(database)\"\n".utf8))
            let file = try BuiltBinaries.run(
                "filmcache", ["warm", "--job", job, "--base-url", "http://127.0.0.1:1/"],
                environment: ["OMDB_API_KEY": key])
            #expect(file.status == 78, "\(database): \(file.stderr)")
            #expect(file.stderr.contains(":2: db: database '\(database)' is not a file path"), "\(file.stderr)")
        }

        @Test func aDanglingSymlinkIsAClearError() throws {
            let alias = scratch.dir + "/dangling.sqlite"
            try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: scratch.dir + "/gone.sqlite")
            let list = try scratch.worklist("one.txt", GeneratedIDs.first(1))
            let out = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", alias, "--base-url", "http://127.0.0.1:1/", list],
                environment: ["OMDB_API_KEY": key])
            #expect(out.status == 78, "\(out.stderr)")
            #expect(out.stderr.contains("\(alias) is a symlink to \(scratch.dir)/gone.sqlite, which does not exist"))
            #expect(!FileManager.default.fileExists(atPath: scratch.dir + "/gone.sqlite"))
        }
    }
}
