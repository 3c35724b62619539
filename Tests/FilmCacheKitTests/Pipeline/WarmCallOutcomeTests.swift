import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// A warm counts each OMDb call by what it came to, and the counts add up to the calls made.
@Suite struct WarmCallOutcomeTests {
    /// The wall clock's one instant: the quota day of a run's reservations and of the checks after
    /// it, even when the suite runs across midnight.
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    let dir = TemporaryDirectory()

    /// Warms `ids` through `transport`, one request at a time.
    func run(_ ids: [String], _ transport: ScriptedTransport, configure: (inout WarmConfiguration) -> Void = { _ in })
        async throws -> (WarmSummary, CacheStore)
    {
        let list = dir.write("list.txt", ids.joined(separator: "\n"))
        var configuration = WarmConfiguration(
            databasePath: dir.file("cache.sqlite"), worklists: [list], apiKey: APIKey("test-key-1234")!)
        configuration.rate = 0
        configuration.maxInFlight = 1
        configuration.backoff = Backoff(base: .milliseconds(1), cap: .milliseconds(2), maxAttempts: 3)
        configure(&configuration)
        let store = try CacheStore(path: configuration.databasePath, logger: SampleFilms.logger)
        let summary = try await WarmJob(
            configuration: configuration, store: SQLiteBackend(store: store), transport: transport,
            time: TimeSource(clock: ContinuousClock(), wall: .fixed(Self.now)), logger: SampleFilms.logger
        ).run()
        return (summary, store)
    }

    @Test func everyCallIsCountedOnceByOutcome() async throws {
        let transport = ScriptedTransport { id, attempt in
            switch (id, attempt) {
            case ("tt1000002", _): ScriptedTransport.error(200, "Incorrect IMDb ID.")
            case ("tt1000003", 1): .failure(.connectionReset)
            case ("tt1000004", _): ScriptedTransport.error(503, "Service Unavailable")
            case ("tt1000005", _): ScriptedTransport.error(404, "Not here")
            case ("tt1000007", _): ScriptedTransport.error(401, "Request limit reached!")
            default: ScriptedTransport.film(id)
            }
        }
        let ids = (1...9).map { "tt" + String(1_000_000 + $0) }
        let (summary, store) = try await run(ids, transport)
        // 1 film; 2 not found; 3 reset then film; 4 three 503s; 5 rejected; 6 film; 7 the limit, and the run stops.
        #expect(summary.callsByOutcome == [.film: 3, .notFound: 1, .retried: 3, .failed: 2, .limit: 1])
        #expect(summary.callsByOutcome.values.reduce(0, +) == summary.calls)
        #expect(summary.calls == transport.requested.count)
        #expect(summary.missing == 9 && summary.stale == 0)
        let runs = try store.runs(key: nil, since: .distantPast)
        #expect(runs.count == 1 && runs[0].outcome == "limit-reached" && runs[0].completed)
    }

    @Test func aRunThatNeverReachesOMDbStopsAsUnreachableAndGivesEveryCallBack() async throws {
        let transport = ScriptedTransport { _, _ in .failure(.connectFailed("connection refused")) }
        let (summary, store) = try await run(["tt1000001", "tt1000002"], transport)
        #expect(summary.stopReason == .unreachable && summary.stopDetail == "connection refused")
        #expect(transport.requested.count == 3, "three refusals in a row end the run")
        #expect(summary.calls == 0 && summary.callsByOutcome.isEmpty, "no call left, none is counted")
        let key = APIKey("test-key-1234")!
        let day = WarmConfiguration(databasePath: "", worklists: [], apiKey: key).quotaDay(containing: Self.now)
        #expect((try store.ledger(key: key.fingerprint, day: day)?.used ?? 0) == 0, "every reservation given back")
        let runs = try store.runs(key: nil, since: .distantPast)
        #expect(runs.count == 1 && runs[0].outcome == "unreachable")
        #expect(try store.lastCompletedRunFinish() == nil)
    }
}
