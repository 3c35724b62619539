import Foundation
import Testing

/// Freshness across runs of the built binary: what is fetched again, and what is left alone.
@Suite(.serialized) struct FreshnessEndToEndTests {
    let dir = NSTemporaryDirectory() + "filmcache-fresh-" + UUID().uuidString
    var db: String { dir + "/cache.sqlite" }
    let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
    let environment = ["OMDB_API_KEY": "test-key-e2e"]

    init() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    func sqlite(_ query: String) throws -> String { try BuiltBinaries.sqlite(db, query) }

    func warm(_ standIn: StandInProcess, _ extra: [String] = []) throws -> BuiltBinaries.Output {
        try BuiltBinaries.run(
            "filmcache", ["warm", "--db", db, "--rate", "0", "--base-url", standIn.baseURL] + extra + [watchlist],
            environment: environment)
    }

    /// `plan --json` as a dictionary.
    func plan(_ extra: [String] = []) throws -> [String: Any] {
        let out = try BuiltBinaries.run(
            "filmcache", ["plan", "--db", db, "--json", "--ids"] + extra + [watchlist], environment: environment)
        #expect(out.status == 0, "\(out.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
    }

    func ids(_ query: String) throws -> [String] {
        try sqlite(query).split(separator: "\n").map(String.init)
    }

    @Test func onlyAgedRowsNotFoundPastTheirTTLAndOldNormalizerRowsAreFetchedAgain() throws {
        let standIn = try StandInProcess()
        let first = try warm(standIn)
        #expect(first.status == 0, "\(first.stderr)")
        let served = try standIn.requestCount()
        let films = try Int(sqlite("SELECT count(*) FROM films")) ?? 0
        #expect(films > 0)

        // Nothing due: the plan is empty and a warm makes no call.
        #expect(try plan()["toFetch"] as? Int == 0)
        #expect(try warm(standIn).status == 0)
        #expect(try standIn.requestCount() == served)

        // Three rows aged past any TTL, two not-found answers past theirs, two rows from an older normalizer.
        let aged = try ids("SELECT imdb_id FROM films ORDER BY imdb_id LIMIT 3")
        let notFound = try ids("SELECT imdb_id FROM lookups WHERE status = 'not_found' ORDER BY imdb_id LIMIT 2")
        let upgraded = try ids("SELECT imdb_id FROM films ORDER BY imdb_id DESC LIMIT 2")
        #expect(notFound.count == 2)
        func list(_ ids: [String]) -> String { ids.map { "'\($0)'" }.joined(separator: ",") }
        _ = try sqlite("UPDATE films SET fetched_at = '2001-01-01T00:00:00Z' WHERE imdb_id IN (\(list(aged)))")
        _ = try sqlite(
            "UPDATE lookups SET next_attempt_at = '2001-01-01T00:00:00Z' WHERE imdb_id IN (\(list(notFound)))")
        _ = try sqlite("UPDATE films SET data_version = 0 WHERE imdb_id IN (\(list(upgraded)))")

        let due = try plan()
        #expect(due["toFetch"] as? Int == 7)
        #expect(due["missing"] as? Int == 2 && due["stale"] as? Int == 3 && due["upgrades"] as? Int == 2)
        let order = try #require(due["toFetchIDs"] as? [String])
        #expect(Set(order.prefix(2)) == Set(notFound), "missing first")
        #expect(Set(order[2..<5]) == Set(aged), "then stale")
        #expect(Set(order.suffix(2)) == Set(upgraded), "then upgrades")

        let third = try warm(standIn)
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try standIn.requestCount() == served + 7, "exactly the seven due IDs were asked for")
        #expect(try sqlite("SELECT count(*) FROM films WHERE fetched_at < '2002-01-01'") == "0")
        #expect(try sqlite("SELECT count(*) FROM films WHERE data_version = 0") == "0")
        #expect(try sqlite("SELECT min(attempts) FROM lookups WHERE imdb_id IN (\(list(notFound)))") == "2")
        #expect(try sqlite("SELECT count(*) FROM films") == "\(films)")
        #expect(try plan()["toFetch"] as? Int == 0)
    }

    @Test func thePlanIsCutToTodaysBudgetAndTheWarmStopsThereWith75() throws {
        let standIn = try StandInProcess()
        let total = try #require(try plan(["--daily-limit", "10000"])["toFetch"] as? Int)
        let limited = try plan(["--daily-limit", "100", "--reserve", "10"])
        #expect(limited["toFetch"] as? Int == 90)
        #expect(limited["deferred"] as? Int == total - 90)
        #expect(limited["daysToClear"] as? Int == (total - 90 + 89) / 90)
        let planned = try #require(limited["toFetchIDs"] as? [String])

        let run = try warm(standIn, ["--daily-limit", "100", "--reserve", "10"])
        #expect(run.status == 75, "deferred work means come back tomorrow: \(run.stderr)")
        #expect(try standIn.requestCount() == 90)
        let fetched = Set(
            try ids("SELECT imdb_id FROM films UNION SELECT imdb_id FROM lookups"))
        #expect(fetched == Set(planned), "the warm fetched exactly the plan")
        let after = try plan(["--daily-limit", "100", "--reserve", "10"])
        #expect(after["callsLeft"] as? Int == 0 && after["toFetch"] as? Int == 0)
        #expect(after["deferred"] as? Int == total - 90)
    }

    @Test func aFailedIDWaitsLongerAfterEachFailedRun() throws {
        // Every request fails with a 500: the ID is recorded as failed with a growing wait.
        let standIn = try StandInProcess(arguments: ["--fault-rate", "1", "--faults", "500"])
        let one = dir + "/one.txt"
        try "tt0172495\n".write(toFile: one, atomically: true, encoding: .utf8)
        func run() throws -> BuiltBinaries.Output {
            try BuiltBinaries.run(
                "filmcache",
                ["warm", "--db", db, "--rate", "0", "--max-attempts", "1", "--base-url", standIn.baseURL, one],
                environment: environment)
        }
        var waits: [Int] = []
        for round in 1...3 {
            _ = try run()
            #expect(try sqlite("SELECT status, attempts FROM lookups") == "failed|\(round)")
            let wait = try sqlite(
                "SELECT CAST(round((julianday(next_attempt_at) - julianday(last_attempt_at)) * 86400) AS INTEGER)"
                    + " FROM lookups")
            waits.append(Int(wait) ?? -1)
            // Make it due again without waiting.
            _ = try sqlite("UPDATE lookups SET next_attempt_at = '2001-01-01T00:00:00Z'")
        }
        #expect(waits == [3_600, 7_200, 14_400])
        #expect(try standIn.requestCount() == 3)
    }

    @Test func theStaleFilmAppsReadMostIsFetchedFirstOfItsKindAndPlanSaysSo() throws {
        let standIn = try StandInProcess()
        #expect(try warm(standIn).status == 0)
        _ = try sqlite("UPDATE films SET fetched_at = '2001-01-01T00:00:00Z'")
        let before = try plan(["--daily-limit", "100000"])
        let order = try #require(before["toFetchIDs"] as? [String])
        let missing = try #require(before["missing"] as? Int)
        #expect(before["askedByApps"] == nil)
        let last = try #require(order.last)
        #expect(order.count > missing + 1 && order.firstIndex(of: last) != missing)

        // Apps asked for the stale film fetched last: it goes first of the stale, after every missing one.
        _ = try sqlite("INSERT INTO demand VALUES ('\(last)', 40, '2026-11-20T10:00:00Z')")
        let after = try plan(["--daily-limit", "100000"])
        let reordered = try #require(after["toFetchIDs"] as? [String])
        #expect(reordered.firstIndex(of: last) == missing, "\(reordered)")
        #expect(Set(reordered) == Set(order))
        let asked = try #require(after["askedByApps"] as? [String: Any])
        #expect(asked["due"] as? Int == 1)
        let most = try #require(asked["mostRequested"] as? [[String: Any]])
        #expect(most.first?["imdbID"] as? String == last && most.first?["requests"] as? Int == 40)
    }
}
