import Foundation
import Testing

/// `export --source`, and `posters --source tmdb`'s settings, as built, on a cache of OMDb's films alone.
@Suite(.serialized) struct TMDbTransferEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-tmdb-transfer-" + UUID().uuidString
    var source: String { dir + "/source.sqlite" }

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    /// Warms the sample watchlist into `source` from a fresh stand-in.
    func warm() throws {
        let standIn = try StandInProcess()
        let out = try BuiltBinaries.run(
            "filmcache",
            [
                "warm", "--db", source, "--rate", "0", "--base-url", standIn.baseURL,
                BuiltBinaries.packageRoot + "/Data/watchlist.txt",
            ], environment: ["OMDB_API_KEY": "test-key-e2e"])
        try #require(out.status == 0, "\(out.stderr)")
    }

    /// Runs `filmcache` with standard output going to `file`; returns the run and the file's bytes.
    func export(_ arguments: [String], to name: String) throws -> (BuiltBinaries.Output, Data) {
        let file = dir + "/" + name
        let out = try BuiltBinaries.run(
            "/bin/sh",
            ["-c", "\"$0\" \"$@\" > \"\(file)\"", BuiltBinaries.directory + "/filmcache", "export", "--db", source]
                + arguments)
        return (out, try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    @Test("An OMDb-only cache exports the same bytes with --source omdb and without; --source tmdb writes none")
    func omdbOnly() throws {
        try warm()
        for format in ["jsonl", "csv"] {
            let (plain, plainBytes) = try export(["--format", format], to: "plain.\(format)")
            let (omdb, omdbBytes) = try export(["--format", format, "--source", "omdb"], to: "omdb.\(format)")
            #expect(plain.status == 0 && omdb.status == 0, "\(plain.stderr) \(omdb.stderr)")
            #expect(plainBytes.count > 1000 && plainBytes == omdbBytes, "\(format)")
            #expect(!String(decoding: plainBytes, as: UTF8.self).contains(#"{"tmdb"#))
        }
        let (lines, lineBytes) = try export(["--source", "tmdb"], to: "tmdb.jsonl")
        // A cache with no TMDb entry (or a backend that keeps none yet) has no TMDb line to write.
        #expect(lines.status == 0 && lineBytes.isEmpty, "\(lines.stderr)")
        let (csv, csvBytes) = try export(["--source", "tmdb", "--format", "csv"], to: "tmdb.csv")
        #expect(csv.status == 0)
        #expect(
            String(decoding: csvBytes, as: UTF8.self) == "media_type,id,imdb_id,title,original_title,overview,"
                + "release_date,runtime,genres,vote_average,vote_count,popularity,poster_path,backdrop_path,collection,"
                + "status,fetched_at\r\n")
    }

    @Test("CSV of both sources is refused, naming --source")
    func csvOfBothSources() throws {
        try warm()
        let (out, bytes) = try export(["--format", "csv", "--source", "omdb", "--source", "tmdb"], to: "both.csv")
        #expect(out.status == 64 && bytes.isEmpty)
        #expect(out.stderr.contains("--source omdb or --source tmdb"), "\(out.stderr)")
    }

    @Test("posters: TMDb's flags need --source tmdb; without a token it stops before anything is opened")
    func postersSettings() throws {
        let store = dir + "/posters"
        let size = try BuiltBinaries.run("filmcache", ["posters", "--db", source, "--store", store, "--size", "w342"])
        #expect(size.status == 64 && size.stderr.contains("--size is for --source tmdb"), "\(size.stderr)")
        let noToken = try BuiltBinaries.run(
            "filmcache", ["posters", "--db", source, "--store", store, "--source", "tmdb"])
        #expect(noToken.status == 78 && noToken.stderr.contains("TMDB_API_TOKEN"), "\(noToken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: source), "no cache was created")
        let badBase = try BuiltBinaries.run(
            "filmcache",
            ["posters", "--db", source, "--store", store, "--source", "tmdb", "--tmdb-base-url", "ftp://x"],
            environment: ["TMDB_API_TOKEN": "secret-token-e2e"])
        #expect(badBase.status == 64 && badBase.stderr.contains("--tmdb-base-url"), "\(badBase.stderr)")
        #expect(!(badBase.stdout + badBase.stderr).contains("secret-token-e2e"))
    }
}
