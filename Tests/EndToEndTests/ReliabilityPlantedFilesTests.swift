import Foundation
import Testing

extension Reliability {
    /// Symlinks planted where a warm writes its own files: the metrics temp file and the run lock.
    /// Neither is followed; the file they point at is never written.
    @Suite struct PlantedFilesTests {
        /// The test's directory and database.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"
        /// What the planted links point at.
        let victimText = "precious\n"

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("planted")
        }

        @Test func aSymlinkAtTheMetricsTempNameIsNotFollowed() throws {
            let standIn = try StandInProcess(arguments: [])
            let list = try scratch.worklist("three.txt", GeneratedIDs.first(3))
            let victim = try scratch.write("victim.txt", Array(victimText.utf8))
            let metrics = scratch.dir + "/filmcache.prom"
            let filmcache = BuiltBinaries.directory + "/filmcache"
            // The shell plants the link at the name its own pid gave the temp file, then becomes the warm.
            let script = """
                ln -s "$1" "$2/.filmcache.prom.$$.tmp" && exec "$3" warm --db "$4" --base-url "$5" --rate 0 \
                --metrics-file "$6" "$7"
                """
            let out = try ReliabilityProcess.run(
                "/bin/sh",
                ["-c", script, "sh", victim, scratch.dir, filmcache, scratch.db, standIn.baseURL, metrics, list],
                environment: ["OMDB_API_KEY": key])
            #expect(out.status == 0, "\(out.stderr)")
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == victimText, "the planted link was followed")
            let written = try String(contentsOfFile: metrics, encoding: .utf8)
            #expect(written.contains("filmcache_"), "the metrics file is written all the same")
            let mode = try FileManager.default.attributesOfItem(atPath: metrics)[.posixPermissions] as? Int
            #expect(mode == 0o644)
        }

        @Test func aSymlinkAtTheLockNameIsNotFollowed() throws {
            let list = try scratch.worklist("one.txt", GeneratedIDs.first(1))
            let victim = try scratch.write("victim.txt", Array(victimText.utf8))
            try FileManager.default.createSymbolicLink(atPath: scratch.db + ".lock", withDestinationPath: victim)
            let out = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", scratch.db, "--base-url", "http://127.0.0.1:1/", list],
                environment: ["OMDB_API_KEY": key])
            #expect(out.status != 0, "\(out.stderr)")
            #expect(out.stderr.contains("cannot take the run lock"), "\(out.stderr)")
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == victimText, "the planted link was followed")
        }
    }
}
