import Foundation
import Testing

/// The built `filmcache` warming the sample watchlist from a real `omdb-standin` process.
@Suite(.serialized) struct WarmEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-e2e-" + UUID().uuidString
    var db: String { dir + "/cache.sqlite" }
    let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
    let key = "test-key-e2e"

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    /// Distinct IDs of the sample watchlist, and those the sample corpus knows.
    func watchlistIDs() throws -> (all: Set<String>, known: Set<String>) {
        let corpus = Set(
            try FileManager.default.contentsOfDirectory(atPath: BuiltBinaries.packageRoot + "/Data/corpus")
                .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) })
        var all = Set<String>()
        for line in try String(contentsOfFile: watchlist, encoding: .utf8).split(whereSeparator: \.isNewline) {
            let text = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            if let range = text.range(of: #"tt[0-9]{7,10}"#, options: .regularExpression) {
                all.insert(String(text[range]))
            }
        }
        return (all, all.intersection(corpus))
    }

    func sqlite(_ query: String) throws -> String { try BuiltBinaries.sqlite(db, query) }

    @Test func warmsTheSampleWatchlistThenASecondRunMakesNoCalls() throws {
        let standIn = try StandInProcess()
        let ids = try watchlistIDs()
        let first = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL, watchlist],
            environment: ["OMDB_API_KEY": key])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("fetched"))
        #expect(try sqlite("SELECT count(*) FROM films") == "\(ids.known.count)")
        #expect(
            try sqlite("SELECT count(*) FROM lookups WHERE status = 'not_found'")
                == "\(ids.all.count - ids.known.count)")
        let served = try standIn.requestCount()
        #expect(served == ids.all.count, "one call per distinct ID")
        #expect(try sqlite("SELECT sum(used) FROM quota_ledger") == "\(served)")
        #expect(
            first.stdout.range(of: #"OMDb calls\s+\#(served)\b"#, options: .regularExpression) != nil, "\(first.stdout)"
        )

        let second = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL, watchlist],
            environment: ["OMDB_API_KEY": key])
        #expect(second.status == 0)
        #expect(try standIn.requestCount() == served, "everything fresh: zero calls")
        #expect(second.stdout.range(of: #"OMDb calls\s+0\b"#, options: .regularExpression) != nil, "\(second.stdout)")
        for output in [first, second] {
            #expect(!output.stdout.contains(key) && !output.stderr.contains(key))
        }
        let dbBytes = try Data(contentsOf: URL(fileURLWithPath: db))
        #expect(dbBytes.range(of: Data(key.utf8)) == nil, "the key never reaches the database")

        let known = try #require(ids.known.sorted().first)
        let show = try BuiltBinaries.run("filmcache", ["show", known, "--db", db, "--json"])
        #expect(show.status == 0)
        #expect(show.stdout.contains("\"imdbID\" : \"\(known)\"") || show.stdout.contains("\"imdbID\": \"\(known)\""))
    }

    @Test func withoutAKeyItExits78WithAClearMessage() throws {
        let out = try BuiltBinaries.run("filmcache", ["warm", "--db", db, watchlist])
        #expect(out.status == 78)
        #expect(out.stderr.contains("OMDB_API_KEY"))
        #expect(!FileManager.default.fileExists(atPath: db), "nothing is created before the key is known")
    }

    @Test func aRejectedKeyExits78AfterOneCallWithoutPrintingIt() throws {
        let standIn = try StandInProcess()
        let bad = "wrong-key-5150"
        let out = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL, watchlist],
            environment: ["OMDB_API_KEY": bad])
        #expect(out.status == 78)
        #expect(out.stderr.contains("rejected the API key"))
        #expect(!out.stderr.contains(bad) && !out.stdout.contains(bad))
        #expect(try standIn.requestCount() == 1)
    }

    @Test func theDailyLimitStopsTheRunWith75AndNoCallAfterIt() throws {
        let standIn = try StandInProcess(arguments: ["--daily-limit", "25"])
        let out = try BuiltBinaries.run(
            "filmcache",
            ["warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL, "--max-in-flight", "4", watchlist],
            environment: ["OMDB_API_KEY": key])
        #expect(out.status == 75, "\(out.stderr)")
        #expect(out.stdout.contains("limit"))
        let served = try standIn.requestCount()
        #expect(served <= 25 + 4, "at most the wave already in flight")
        #expect(try sqlite("SELECT sum(used) FROM quota_ledger") == "\(served)")
        #expect(try sqlite("SELECT count(*) FROM quota_ledger WHERE exhausted_at IS NOT NULL") == "1")

        let again = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL, watchlist],
            environment: ["OMDB_API_KEY": key])
        #expect(again.status == 75)
        #expect(try standIn.requestCount() == served, "the exhausted day gets no more calls")
    }

    @Test func showExits1ForAFilmNotCached() throws {
        let standIn = try StandInProcess()
        _ = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL, watchlist],
            environment: ["OMDB_API_KEY": key])
        let out = try BuiltBinaries.run("filmcache", ["show", "tt9999999", "--db", db])
        #expect(out.status == 1)
        #expect(out.stderr.contains("tt9999999 is not in the cache"))

        let banana = try BuiltBinaries.run("filmcache", ["show", "banana", "--db", db])
        #expect(banana.status == 64)
        #expect(banana.stderr.contains(#""banana" is not an IMDb ID"#), "\(banana.stderr)")
        let id = try sqlite("SELECT imdb_id FROM films ORDER BY imdb_id LIMIT 1")
        let byURL = try BuiltBinaries.run(
            "filmcache", ["show", "https://www.imdb.com/de/title/\(id.uppercased())/?ref_=fn_al_tt_1", "--db", db])
        #expect(byURL.status == 0 && byURL.stdout.contains("— \(id)"), "\(byURL.stderr)")
    }
}
