import Foundation
import Testing

@testable import FilmCacheKit

/// A whole warm in process: the scripted transport as OMDb, the memory backend as the cache, one
/// wall-clock instant for the run and the store.
@Suite struct WarmJobMemoryTests {
    let dir = TemporaryDirectory()
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    let key = APIKey("test-key-1234")!

    /// A warm of `ids` into `store` through `transport`, at `now`.
    func job(
        _ ids: [String], store: MemoryBackend, transport: ScriptedTransport,
        configure: (inout WarmConfiguration) -> Void = { _ in }
    ) -> WarmJob {
        let list = dir.write("list-\(UUID().uuidString).txt", ids.joined(separator: "\n"))
        var configuration = WarmConfiguration(databasePath: store.displayName, worklists: [list], apiKey: key)
        configuration.baseURL = "http://127.0.0.1:9/"
        configuration.rate = 0
        configure(&configuration)
        return WarmJob(
            configuration: configuration, store: store, transport: transport,
            time: TimeSource(clock: ManualClock(), wall: .fixed(now)), logger: SampleFilms.logger)
    }

    static func ids(_ n: Int) -> [String] { (1...n).map { "tt" + String(1_000_000 + $0) } }

    @Test func aWarmStoresFilmsCountsItsCallsAndRecordsANotFoundThenTheNextSpendsNothing() async throws {
        let store = MemoryBackend(wall: .fixed(now))
        let transport = ScriptedTransport { id, _ in
            id.hasSuffix("3") ? ScriptedTransport.error(200, "Incorrect IMDb ID.") : ScriptedTransport.film(id)
        }
        let warm = job(Self.ids(24), store: store, transport: transport)
        let first = try await warm.run()
        #expect(first.fetched == 21 && first.notFound == 3 && first.failed == 0 && first.calls == 24)
        #expect(try await store.filmCount() == 21)
        #expect(try await store.film("tt1000001")?.title == "Film tt1000001")
        #expect(try await store.film("tt1000001")?.lastFetched == now)
        #expect(try await store.lookup("tt1000013")?.status == .notFound)
        #expect(try await store.ledger(key: key.fingerprint, day: QuotaDay(containing: now))?.used == 24)
        let runs = try await store.runs(key: key.fingerprint, since: .distantPast)
        #expect(runs.count == 1 && runs[0].outcome == "done" && runs[0].calls == 24 && runs[0].fetched == 21)

        let second = try await warm.run()
        #expect(second.calls == 0 && second.fresh == 21 && second.awaitingRecheck == 3)
        #expect(transport.requested.count == 24 && Set(transport.requested).count == 24, "no ID fetched twice")
        #expect(try await store.ledger(key: key.fingerprint, day: QuotaDay(containing: now))?.used == 24)
        #expect(try await store.runs(key: nil, since: .distantPast).count == 2)
    }

    @Test func aWarmStopsAtTheDaysBudgetAndTheLedgerHoldsEveryCallItSent() async throws {
        let store = MemoryBackend(wall: .fixed(now))
        let transport = ScriptedTransport { id, _ in ScriptedTransport.film(id) }
        let warm = job(Self.ids(30), store: store, transport: transport) { $0.dailyLimit = 20 }
        let usable = QuotaBudget(limit: 20, reservePercent: 5).usable
        let summary = try await warm.run()
        #expect(summary.calls == usable && summary.fetched == usable)
        #expect(summary.deferred == 30 - usable)
        #expect(transport.requested.count == usable)
        #expect(try await store.ledger(key: key.fingerprint, day: QuotaDay(containing: now))?.used == usable)
        let again = try await warm.run()
        #expect(again.calls == 0 && transport.requested.count == usable, "the day's budget is spent")
    }
}
