import Foundation
import Testing

@testable import FilmCacheKit

/// `filmcache plan`'s account of the due IDs apps asked for.
@Suite struct PlanReportTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// Tonight's plan over missing IDs `tt0000001` … `tt0000008`, apps having asked for some.
    func night(requests: [String: Int]) -> NightPlan {
        let states = (1...8).map { CachedState(imdbID: "tt000000\($0)") }
        let plan = Planner().plan(states, requests: requests, now: now, budget: 3)
        return NightPlan(
            plan: plan, quotaDay: "2027-01-15", callsPerDay: 950, callsUsed: 947, callsLeft: 3, exhausted: false,
            skippedLines: 0)
    }

    func json(_ night: NightPlan, ids: Bool = false) throws -> [String: Any] {
        let text = PlanReport.json(night, keyFingerprint: nil, ids: ids)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theDueIDsAppsAskedForAreCountedAndTheMostRequestedNamed() throws {
        let requests = [
            "tt0000002": 4, "tt0000003": 9, "tt0000004": 1, "tt0000005": 4, "tt0000006": 2, "tt0000007": 7,
        ]
        let night = night(requests: requests)
        #expect(night.plan.toFetch == ["tt0000003", "tt0000007", "tt0000002"])
        let text = PlanReport.text(night, keyFingerprint: nil, database: "cache.sqlite")
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("  asked by apps ") })
        #expect(row.contains(" 6 "), "\(row)")
        let labels = text.split(separator: "\n").dropFirst().map { $0.split(separator: " ").first ?? "" }
        #expect(labels.firstIndex(of: "asked") == labels.firstIndex(of: "deferred").map { $0 + 1 }, "\(text)")
        #expect(
            row.hasSuffix(
                "first within their kind; most: tt0000003 (9), tt0000007 (7), tt0000002 (4), tt0000005 (4), tt0000006 (2), …"
            ), "\(row)")

        let asked = try #require(try json(night)["askedByApps"] as? [String: Any])
        #expect(asked["due"] as? Int == 6)
        let most = try #require(asked["mostRequested"] as? [[String: Any]])
        #expect(
            most.map { $0["imdbID"] as? String } == ["tt0000003", "tt0000007", "tt0000002", "tt0000005", "tt0000006"])
        #expect(most.map { $0["requests"] as? Int } == [9, 7, 4, 4, 2])
        let all = try #require(try json(night, ids: true)["askedByApps"] as? [String: Any])
        #expect((all["mostRequested"] as? [[String: Any]])?.count == 6)
    }

    @Test func withoutRequestsThePlanReadsAsBefore() throws {
        let night = night(requests: ["tt0000099": 5])
        #expect(!PlanReport.text(night, keyFingerprint: nil, database: "cache.sqlite").contains("asked by apps"))
        #expect(try json(night)["askedByApps"] == nil)
    }
}
