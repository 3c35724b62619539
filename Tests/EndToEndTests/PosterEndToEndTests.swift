import Foundation
import Testing

/// Posters fetched by the built `filmcache` from the stand-in's image host, into a real store directory.
///
/// The stand-in serves its images on loopback, an address poster fetches refuse unless the host
/// is allowed: every run here allows it (``allowStandIn``), as an operator allows a LAN image server.
@Suite(.serialized) struct PosterEndToEndTests {
    let scratch: ReliabilityScratch
    var db: String { scratch.db }
    var store: String { scratch.dir + "/posters" }
    let environment = ["OMDB_API_KEY": "test-key-e2e"]
    /// The flag that lets poster fetches reach the stand-in on loopback.
    static let allowStandIn = ["--poster-allow-host", "127.0.0.1"]

    init() throws {
        scratch = try ReliabilityScratch("posters")
    }

    /// Warms `ids` from `standIn` into the scratch cache, with `extra` flags.
    func warm(_ ids: [String], _ standIn: StandInProcess, _ extra: [String] = []) throws -> BuiltBinaries.Output {
        let worklist = try scratch.worklist("ids-\(UUID().uuidString).txt", ids)
        return try BuiltBinaries.run(
            "filmcache",
            ["warm", "--db", db, "--base-url", standIn.baseURL, "--rate", "0", worklist] + extra,
            environment: environment)
    }

    func posters(_ extra: [String] = [], environment: [String: String] = [:]) throws -> BuiltBinaries.Output {
        try BuiltBinaries.run(
            "filmcache", ["posters", "--db", db, "--store", store, "--poster-rate", "500"] + Self.allowStandIn + extra,
            environment: environment)
    }

    /// The stand-in's poster counters.
    func posterCounters(_ standIn: StandInProcess) throws -> [String: Int] {
        try standIn.stats()["posters"] as? [String: Int] ?? [:]
    }

    /// Every regular file under the store (temporary ones included), relative to it.
    func storeFiles() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: store)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: store + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(path)
            }
        }
        return files.sorted()
    }

    /// Checks that every file under a final name holds the bytes its name says and is a JPEG, and
    /// that every row naming a file names one that is there. Returns the final names.
    @discardableResult
    func expectStoreIsSound(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let finals = storeFiles().filter { $0.hasSuffix(".jpg") && !($0 as NSString).lastPathComponent.hasPrefix(".") }
        // One sha256sum for them all (none with no file: it would read its input), its lines
        // (`DIGEST  PATH`) in the order of its arguments.
        let summed =
            finals.isEmpty
            ? BuiltBinaries.Output(status: 0, stdout: "", stderr: "")
            : try ReliabilityProcess.run("/usr/bin/sha256sum", ["--"] + finals.map { store + "/" + $0 })
        let lines = summed.stdout.split(separator: "\n")
        try #require(
            summed.status == 0 && lines.count == finals.count,
            "sha256sum exited \(summed.status) with \(lines.count) lines for \(finals.count) files: \(summed.stderr)",
            sourceLocation: sourceLocation)
        for (file, line) in zip(finals, lines) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: store + "/" + file))
            let name = (file as NSString).lastPathComponent
            #expect(
                line.hasSuffix("  " + store + "/" + file), "sha256sum's line \(line) is not \(file)'s",
                sourceLocation: sourceLocation)
            #expect(
                name == line.prefix(64) + ".jpg", "\(file) holds other bytes than its name says",
                sourceLocation: sourceLocation)
            #expect(
                Array(bytes.prefix(3)) == [0xFF, 0xD8, 0xFF], "\(file) is not a JPEG", sourceLocation: sourceLocation)
            #expect(file == String(name.prefix(2)) + "/" + name, sourceLocation: sourceLocation)
        }
        for file in try scratch.column("SELECT file FROM posters WHERE file IS NOT NULL") {
            #expect(finals.contains(file), "a row names \(file), which the store lacks", sourceLocation: sourceLocation)
        }
        return finals
    }

    @Test func aWarmStoresEachPosterOnceThenRevalidatesWith304sAndPrunesReplacedOnes() throws {
        let standIn = try StandInProcess(arguments: ["--generate", "80", "--posters"], corpus: nil)
        let ids = GeneratedIDs.first(60)
        let warmed = try warm(ids, standIn, ["--posters", store] + Self.allowStandIn)
        #expect(warmed.status == 0, "\(warmed.stderr)")
        let withPoster = Int(try scratch.sqlite("SELECT count(*) FROM films WHERE poster_url IS NOT NULL")) ?? -1
        #expect(withPoster > 40)
        #expect(reported("stored", warmed.stdout) == withPoster, "\(warmed.stdout)")
        #expect(try scratch.sqlite("SELECT count(*) FROM posters WHERE status = 'stored'") == String(withPoster))
        let finals = try expectStoreIsSound()
        #expect(finals.count == withPoster)
        #expect(try posterCounters(standIn)["images"] == withPoster)

        // Nothing is due: no request at all.
        let again = try posters()
        #expect(again.status == 0 && reported("due", again.stdout) == 0, "\(again.stdout)")
        #expect(try posterCounters(standIn)["requests"] == withPoster)

        // Revalidating everything costs 304s and no bytes.
        let bytesBefore = try posterCounters(standIn)["bytes"]
        let revalidated = try posters(["--poster-revalidate-days", "0"])
        #expect(revalidated.status == 0)
        #expect(reported("not modified", revalidated.stdout) == withPoster, "\(revalidated.stdout)")
        #expect(try posterCounters(standIn)["notModified"] == withPoster)
        #expect(try posterCounters(standIn)["bytes"] == bytesBefore)

        // A poster deleted by hand is fetched whole, not revalidated against a file that is not there.
        try FileManager.default.removeItem(atPath: store + "/" + finals[0])
        let refetched = try posters(["--poster-revalidate-days", "0"])
        #expect(reported("stored", refetched.stdout) == 1, "\(refetched.stdout)")
        try expectStoreIsSound()

        // New images upstream: each is stored anew; once the old files are past the grace period,
        // --prune removes exactly them.
        try standIn.setBehaviour("poster-version=2")
        let replaced = try posters(["--poster-revalidate-days", "0"])
        #expect(reported("stored", replaced.stdout) == withPoster, "\(replaced.stdout)")
        #expect(storeFiles().count == 2 * withPoster)
        let aged = try ReliabilityProcess.run(
            "/usr/bin/find", [store, "-type", "f", "-exec", "touch", "-d", "3 hours ago", "{}", "+"])
        #expect(aged.status == 0)
        try FileManager.default.createDirectory(atPath: store + "/ab/cd", withIntermediateDirectories: true)
        try scratch.write("posters/ab/cd/notes.txt", Array("mine".utf8))
        let pruned = try posters(["--prune"])
        #expect(pruned.status == 0)
        #expect(pruned.stdout.contains("pruned: \(withPoster) files no film references"), "\(pruned.stdout)")
        #expect(pruned.stdout.contains("1 files not named by the store left alone"), "\(pruned.stdout)")
        #expect(FileManager.default.fileExists(atPath: store + "/ab/cd/notes.txt"), "a file the store did not name")
        let left = try expectStoreIsSound()
        #expect(left.count == withPoster)
        #expect(Set(left) == Set(try scratch.column("SELECT file FROM posters")))
    }

    @Test func postersThatAreGoneOrNotImagesAreNeverStoredAndWaitForTheirRetryTime() throws {
        let standIn = try StandInProcess(
            arguments: [
                "--generate", "120", "--posters", "--poster-fault-rate", "0.5", "--poster-faults",
                "404,html,mislabelled,huge,503",
            ], corpus: nil)
        let warmed = try warm(GeneratedIDs.first(100), standIn)
        #expect(warmed.status == 0)
        let first = try posters(["--poster-max-bytes", "1048576"])
        #expect(first.status == 0, "\(first.stderr)")
        try expectStoreIsSound()
        let gone = Int(try scratch.sqlite("SELECT count(*) FROM posters WHERE status = 'gone'")) ?? 0
        let failed = Int(try scratch.sqlite("SELECT count(*) FROM posters WHERE status = 'failed'")) ?? 0
        let stored = Int(try scratch.sqlite("SELECT count(*) FROM posters WHERE status = 'stored'")) ?? 0
        #expect(gone > 0 && failed > 0 && stored > 0)
        #expect(try scratch.sqlite("SELECT count(*) FROM posters WHERE status <> 'stored' AND file IS NOT NULL") == "0")
        #expect(storeFiles().count == stored, "only images were stored")
        let messages = Set(try scratch.column("SELECT DISTINCT message FROM posters WHERE status = 'failed'"))
        #expect(messages.contains { $0.hasPrefix("not an image (Content-Type: text/html") })
        #expect(messages.contains { $0.hasPrefix("labelled image/jpeg but its bytes are not") })
        #expect(messages.contains("response body larger than 1048576 bytes"))
        #expect(messages.contains("HTTP 503"))
        #expect(first.stderr.contains("poster refused"))

        // The next night: nothing is due, so not one request (gone posters wait 30 days, failed ones an hour).
        let requests = try posterCounters(standIn)["requests"] ?? -1
        let next = try posters()
        #expect(reported("due", next.stdout) == 0, "\(next.stdout)")
        #expect(try posterCounters(standIn)["requests"] == requests)

        // Two hours on, the failed ones are tried again and the gone ones are not.
        let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(7200))
        let retried = try posters(environment: ["FILMCACHE_NOW": later])
        #expect(reported("due", retried.stdout) == failed, "\(retried.stdout)")
        #expect(try posterCounters(standIn)["requests"] == requests + failed)
        #expect(try scratch.sqlite("SELECT min(attempts) FROM posters WHERE status = 'failed'") == "2")
        // Thirty-one days on, the gone ones are asked again.
        let month = ISO8601DateFormatter().string(from: Date().addingTimeInterval(31 * 86_400))
        let asked = try posters(environment: ["FILMCACHE_NOW": month])
        #expect(reported("gone", asked.stdout) == gone, "\(asked.stdout)")
    }

    @Test func killsMidRunNeverLeaveHalfAnImageUnderAFinalName() throws {
        let standIn = try StandInProcess(
            arguments: ["--generate", "300", "--posters", "--latency-ms", "15"], corpus: nil)
        let warmed = try warm(GeneratedIDs.first(250), standIn)
        #expect(warmed.status == 0)
        try standIn.setBehaviour("latency-ms=15")
        for round in 0..<5 {
            let run = try RunningBinary(
                "filmcache",
                ["posters", "--db", db, "--store", store, "--poster-rate", "0", "--poster-max-in-flight", "16"]
                    + Self.allowStandIn)
            usleep(UInt32(150_000 + round * 120_000))
            run.send(SIGKILL)
            _ = run.wait()
            try expectStoreIsSound()
        }
        let withPoster = try scratch.sqlite("SELECT count(*) FROM films WHERE poster_url IS NOT NULL")
        let done = try posters(["--poster-rate", "0"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try scratch.sqlite("SELECT count(*) FROM posters WHERE status = 'stored'") == withPoster)
        let finals = try expectStoreIsSound()
        #expect(String(finals.count) == withPoster)

        // A SIGTERM stops cleanly: transfers in flight are recorded, exit 75, the rest resumes.
        // Slow images, so that the run is still busy when the signal comes however loaded the machine;
        // the signal comes once a request has arrived, which the run sends after its handlers are set.
        try standIn.setBehaviour("poster-version=2&latency-ms=3000")
        let requestsBefore = try posterCounters(standIn)["requests"] ?? 0
        let run = try RunningBinary(
            "filmcache",
            ["posters", "--db", db, "--store", store, "--poster-revalidate-days", "0", "--poster-max-in-flight", "4"]
                + Self.allowStandIn)
        try waitFor("the run asks for an image", every: 0.02, while: run.isRunning) {
            try posterCounters(standIn)["requests"] ?? 0 != requestsBefore
        }
        run.send(SIGTERM)
        try standIn.setBehaviour("latency-ms=0")
        let stopped = run.wait()
        #expect(stopped.status == 75, "\(stopped.stdout)\(stopped.stderr)")
        #expect(stopped.stdout.contains("stopped early: interrupted"))
        try expectStoreIsSound()
        let resumed = try posters(["--poster-revalidate-days", "0", "--poster-rate", "0", "--prune"])
        #expect(resumed.status == 0)
        try expectStoreIsSound()
    }

    @Test(.enabled(if: ReliabilityMount.isPossible, Comment(rawValue: ReliabilityMount.impossible)))
    func aFullDiskStopsWithItsReasonAndLeavesEveryRecordedFileWhole() throws {
        let standIn = try StandInProcess(arguments: ["--generate", "80", "--posters"], corpus: nil)
        #expect(try warm(GeneratedIDs.first(60), standIn).status == 0)
        let mount = try ReliabilityMount(at: store, size: "256k")
        defer { mount.remove() }
        let full = try posters()
        #expect(full.status == 74, "\(full.stdout)\(full.stderr)")
        #expect(full.stderr.contains("No space left on device"), "\(full.stderr)")
        let recorded = try expectStoreIsSound()
        #expect(!recorded.isEmpty && recorded.count < 50)
        #expect(storeFiles().allSatisfy { !$0.hasSuffix(".tmp") }, "a failed write removes its temporary file")
        #expect(try scratch.sqlite("SELECT count(*) FROM posters") == String(recorded.count))
    }

    @Test func filmsSharingOnePosterShareOneFile() throws {
        let corpus = scratch.dir + "/corpus"
        try FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
        let template =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: BuiltBinaries.packageRoot + "/Data/corpus/tt0100044.json")))
            as? [String: Any] ?? [:]
        let posterURLs = [
            "https://m.media-amazon.com/images/M/MV5BSHARED@@._V1_SX300.jpg",
            "https://m.media-amazon.com/images/M/MV5BSHARED@@._V1_SX300.jpg",
            "https://m.media-amazon.com/images/M/MV5BOTHER@@._V1_SX300.jpg",
            "file:///etc/passwd",
        ]
        for (index, id) in ["tt0000101", "tt0000102", "tt0000103", "tt0000104"].enumerated() {
            var body = template
            body["imdbID"] = id
            body["Poster"] = posterURLs[index]
            try JSONSerialization.data(withJSONObject: body, options: .withoutEscapingSlashes).write(
                to: URL(fileURLWithPath: "\(corpus)/\(id).json"))
        }
        let standIn = try StandInProcess(arguments: ["--posters"], corpus: corpus)
        let warmed = try warm(
            ["tt0000101", "tt0000102", "tt0000103", "tt0000104"], standIn, ["--posters", store] + Self.allowStandIn)
        #expect(warmed.status == 0, "\(warmed.stderr)")
        #expect(reported("stored", warmed.stdout) == 2, "\(warmed.stdout)")
        #expect(reported("already held", warmed.stdout) == 1, "\(warmed.stdout)")
        #expect(try expectStoreIsSound().count == 2)
        #expect(try scratch.sqlite("SELECT count(DISTINCT file) FROM posters") == "2")
        // A Poster that is not an http(s) URL is never requested: no file read from this machine.
        #expect(
            try scratch.sqlite("SELECT status || ' ' || message FROM posters WHERE imdb_id = 'tt0000104'")
                == "gone not an http(s) URL")
    }

    @Test func aJobFilesPosterStoreMakesTheNightlyWarmFetchPosters() throws {
        let standIn = try StandInProcess(arguments: ["--generate", "20", "--posters"], corpus: nil)
        try scratch.worklist("list.txt", GeneratedIDs.first(10))
        let job = try scratch.write(
            "nightly.toml",
            Array(
                """
                db = "cache.sqlite"
                worklists = ["list.txt"]
                base_url = "\(standIn.baseURL)"
                rate = 0
                poster_store = "posters"
                poster_rate = 0
                poster_allow_hosts = ["127.0.0.1"]
                """.utf8))
        let out = try BuiltBinaries.run("filmcache", ["warm", "--job", job], environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.contains("filmcache posters → \(store)"), "\(out.stdout)")
        let rows = try scratch.sqlite("SELECT count(*) FROM posters WHERE status = 'stored'")
        #expect(rows == (try scratch.sqlite("SELECT count(*) FROM films WHERE poster_url IS NOT NULL")))
        #expect(rows != "0")

        let bad = try BuiltBinaries.run(
            "filmcache", ["posters", "--job", job, "--poster-rate=-1"], environment: environment)
        #expect(bad.status == 64)
        #expect(
            bad.stderr.contains("--poster-rate must be 0 or from 0.001 to 10000 requests a second"), "\(bad.stderr)")
        try scratch.write("bad-host.toml", Array("poster_allow_hosts = [\"127.0.0.1\", \"images.lan:8080\"]\n".utf8))
        let badHost = try BuiltBinaries.run(
            "filmcache", ["posters", "--job", scratch.dir + "/bad-host.toml", "--db", db, "--store", store],
            environment: environment)
        #expect(badHost.status == 78, "\(badHost.stderr)")
        #expect(
            badHost.stderr.contains("bad-host.toml:1: poster_allow_hosts: 'images.lan:8080' is not a host name"),
            "\(badHost.stderr)")
        let badFlag = try BuiltBinaries.run(
            "filmcache", ["posters", "--job", job, "--poster-allow-host", "http://images.lan/"],
            environment: environment)
        #expect(badFlag.status == 64, "\(badFlag.stderr)")
        #expect(
            badFlag.stderr.contains("--poster-allow-host: 'http://images.lan/' is not a host name"), "\(badFlag.stderr)"
        )
        let missing = try BuiltBinaries.run(
            "filmcache", ["posters", "--db", scratch.dir + "/none.sqlite", "--store", store], environment: environment)
        #expect(missing.status == 66 && missing.stderr.contains("no cache database at"), "\(missing.stderr)")
        try scratch.write("afile", Array("x".utf8))
        let notADirectory = try BuiltBinaries.run(
            "filmcache", ["posters", "--db", db, "--store", scratch.dir + "/afile"], environment: environment)
        #expect(
            notADirectory.status == 73 && notADirectory.stderr.contains("is not a directory"), "\(notADirectory.stderr)"
        )
    }
}

/// The count a poster report gives on the row labelled `label`.
func reported(_ label: String, _ output: String) -> Int? {
    output.split(separator: "\n").lazy.compactMap { line -> Int? in
        let text = line.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix(label + " ") else { return nil }
        return Int(text.dropFirst(label.count).trimmingCharacters(in: .whitespaces).prefix { $0.isNumber })
    }.first
}
