import Foundation
import Testing

/// Each worklist format read by the built `filmcache`, detected from content or named.
@Suite(.serialized) struct WorklistFormatEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-formats-" + UUID().uuidString
    var db: String { dir + "/cache.sqlite" }
    let data = BuiltBinaries.packageRoot + "/Data"
    let environment = ["OMDB_API_KEY": "test-key-e2e"]

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = dir + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func planned(_ arguments: [String]) throws -> (status: Int32, ids: [String], stderr: String) {
        let out = try BuiltBinaries.run(
            "filmcache", ["plan", "--db", db, "--json", "--ids"] + arguments, environment: environment)
        let object = try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
        return (out.status, object?["toFetchIDs"] as? [String] ?? [], out.stderr)
    }

    @Test func anIMDbExportWithQuotedCommasAndLineBreaksIsReadByItsConstColumn() throws {
        let csv = try write(
            "export.csv",
            """
            Position,Const,Created,Modified,Description,Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,Genres,Num Votes,Release Date,Directors\r
            1,tt0172495,2024-01-02,2024-01-02,"Epic, with ""Maximus"" in it",Gladiator,https://www.imdb.com/title/tt0172495/,movie,8.5,155,2000,"Action, Adventure, Drama",1600000,2000-05-01,Ridley Scott\r
            2,tt0133093,2024-01-03,2024-01-03,"A note
            over two lines, with a comma",The Matrix,https://www.imdb.com/title/tt0133093/,movie,8.7,136,1999,"Action, Sci-Fi",2000000,1999-03-24,"Lana Wachowski, Lilly Wachowski"\r
            3,nm0000158,2024-01-04,2024-01-04,,A person,https://www.imdb.com/name/nm0000158/,,,,,,,,\r
            4,tt0068646,2024-01-05,2024-01-05,,The Godfather,https://www.imdb.com/title/tt0068646/,movie,9.2,175,1972,"Crime, Drama",1900000,1972-03-24,Francis Ford Coppola\r

            """)
        let plan = try planned([csv])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.ids == ["tt0172495", "tt0133093", "tt0068646"])
        #expect(plan.stderr.contains("export.csv:5"), "the person's record is named by file and line: \(plan.stderr)")

        // Forced to plain text, no line is a bare ID or URL: the file is refused, naming it.
        let text = try planned(["--worklist-format", "text", csv])
        #expect(text.status == 65)
        #expect(text.stderr.contains("export.csv names no IMDb ID"), "\(text.stderr)")
    }

    @Test func theShippedSampleWorklistsWarmInEveryFormat() throws {
        let standIn = try StandInProcess()
        for file in ["watchlist.csv", "watchlist.json", "watchlist.txt"] {
            let plan = try planned([data + "/" + file])
            #expect(plan.status == 0, "\(file): \(plan.stderr)")
            #expect(!plan.ids.isEmpty, "\(file) names IDs")
            let warm = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL, data + "/" + file],
                environment: environment)
            #expect(warm.status == 0, "\(file): \(warm.stderr)")
            let stored = Set(
                try BuiltBinaries.sqlite(db, "SELECT imdb_id FROM films UNION SELECT imdb_id FROM lookups")
                    .split(separator: "\n").map(String.init))
            #expect(Set(plan.ids).isSubset(of: stored), "\(file): every planned ID was answered")
        }
    }

    @Test func badWorklistsExit65NamingTheFile() throws {
        let empty = try write("empty.txt", "")
        let junk = try write("junk.json", "[{\"imdbID\": \"tt1'; DROP TABLE films;--\"}, 42]")
        let broken = try write("broken.csv", "Const,Title\ntt0172495,\"never closed\n")
        for (file, words) in [(empty, "empty.txt"), (junk, "junk.json"), (broken, "broken.csv")] {
            let out = try planned([file])
            #expect(out.status == 65, "\(file): \(out.stderr)")
            #expect(out.stderr.contains(words), "\(out.stderr)")
        }
    }
}
