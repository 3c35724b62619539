import Foundation
import Synchronization
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

@Suite struct WarmJobTests {
    let dir = TemporaryDirectory()
    /// The wall clock's one instant in these runs: a quota day that a run's reservations and the
    /// checks after it share, whenever the suite runs (the system's clock could cross midnight
    /// between them).
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    func job(_ ids: [String], transport: ScriptedTransport, configure: (inout WarmConfiguration) -> Void = { _ in })
        throws -> (WarmJob, CacheStore)
    {
        let list = dir.write("list-\(UUID().uuidString).txt", ids.joined(separator: "\n"))
        var configuration = WarmConfiguration(
            databasePath: dir.file("cache.sqlite"), worklists: [list], apiKey: APIKey("test-key-1234")!)
        configuration.baseURL = "http://127.0.0.1:9/"
        configuration.rate = 0
        configuration.backoff = Backoff(base: .milliseconds(1), cap: .milliseconds(4), maxAttempts: 3)
        configure(&configuration)
        let store = try CacheStore(path: configuration.databasePath, logger: SampleFilms.logger)
        return (
            WarmJob(
                configuration: configuration, store: SQLiteBackend(store: store), transport: transport,
                time: TimeSource(clock: ContinuousClock(), wall: .fixed(Self.now)), logger: SampleFilms.logger), store
        )
    }

    static func ids(_ n: Int) -> [String] { (1...n).map { "tt" + String(1_000_000 + $0) } }

    func ledgerUsed(_ store: CacheStore) throws -> Int {
        try store.ledger(key: APIKey("test-key-1234")!.fingerprint, day: QuotaDay(containing: Self.now))?.used ?? 0
    }

    @Test func fetchesStoresAndRecordsNotFoundThenSecondRunMakesNoCalls() async throws {
        let transport = ScriptedTransport { id, _ in
            id.hasSuffix("3") ? ScriptedTransport.error(200, "Incorrect IMDb ID.") : ScriptedTransport.film(id)
        }
        let (job, store) = try job(Self.ids(40), transport: transport)
        let first = try await job.run()
        #expect(first.fetched == 36 && first.notFound == 4 && first.failed == 0 && first.calls == 40)
        #expect(try store.filmCount() == 36)
        #expect(try store.lookup("tt1000003")?.status == .notFound)
        #expect(try ledgerUsed(store) == 40)

        let second = try await job.run()
        #expect(second.calls == 0 && second.fresh == 36 && second.awaitingRecheck == 4)
        #expect(transport.requested.count == 40)
        #expect(Set(transport.requested).count == 40, "no ID fetched twice")
    }

    @Test func limitReachedStopsEverythingAndMarksTheDay() async throws {
        let transport = ScriptedTransport { id, _ in
            Int(id.dropFirst(2))! > 1_000_010
                ? ScriptedTransport.error(401, "Request limit reached!") : ScriptedTransport.film(id)
        }
        let (job, store) = try job(Self.ids(200), transport: transport) { $0.maxInFlight = 4 }
        let summary = try await job.run()
        #expect(summary.stopReason == .limitReached)
        #expect(summary.fetched == 10)
        // At most the in-flight wave that was already sent when the first limit answer arrived.
        #expect(transport.requested.count <= 10 + 4)
        #expect(summary.calls == transport.requested.count)
        #expect(try ledgerUsed(store) == transport.requested.count)
        #expect(summary.deferred == 200 - 10)
        let key = APIKey("test-key-1234")!.fingerprint
        #expect(try store.ledger(key: key, day: QuotaDay(containing: Self.now))?.exhaustedAt != nil)

        // The same day, a new run makes no call at all.
        let again = try await job.run()
        #expect(again.calls == 0 && again.stopReason == .budgetSpent)
        #expect(transport.requested.count == summary.calls)
    }

    @Test func invalidKeyAbortsAfterOneCall() async throws {
        let transport = ScriptedTransport { _, _ in ScriptedTransport.error(401, "Invalid API key!") }
        let (job, store) = try job(Self.ids(50), transport: transport)
        await #expect {
            try await job.run()
        } throws: { error in
            guard case WarmError.invalidKey = error else { return false }
            return !"\(error)".contains("test-key-1234")
        }
        #expect(transport.requested.count == 1)
        #expect(try ledgerUsed(store) == 1)
    }

    @Test func transientFailuresAreRetriedAndEveryTryIsCounted() async throws {
        let transport = ScriptedTransport { id, attempt in
            switch (id, attempt) {
            case ("tt1000001", 1): .failure(.connectionReset)
            case ("tt1000002", 1), ("tt1000002", 2): ScriptedTransport.error(503, "Service Unavailable")
            case ("tt1000003", _): .success(HTTPResponse(status: 200, body: Array(#"{"Title":"trunc"#.utf8)))
            case ("tt1000004", 1): ScriptedTransport.error(200, "Error getting data.")
            default: ScriptedTransport.film(id)
            }
        }
        let (job, store) = try job(Self.ids(5), transport: transport)
        let summary = try await job.run()
        #expect(summary.fetched == 4)
        #expect(summary.failed == 1)
        #expect(summary.calls == 2 + 3 + 3 + 2 + 1)
        #expect(summary.calls == transport.requested.count)
        #expect(try ledgerUsed(store) == transport.requested.count)
        let failure = try #require(try store.lookup("tt1000003"))
        #expect(failure.status == .failed && failure.message?.contains("attempt 3") == true)
    }

    @Test func aDeadServerTripsTheCircuitBreakerInsteadOfBurningTheBudget() async throws {
        let transport = ScriptedTransport { _, _ in ScriptedTransport.error(503, "Service Unavailable") }
        let (job, store) = try job(Self.ids(100), transport: transport) {
            $0.maxInFlight = 1
            $0.circuitBreaker = CircuitBreaker(pauseAfter: 3, stopAfter: 6, coolDown: .milliseconds(5))
        }
        let summary = try await job.run()
        #expect(summary.stopReason == .tooManyFailures)
        #expect(transport.requested.count == 6)
        #expect(summary.calls == 6)
        #expect(try ledgerUsed(store) == 6)
        #expect(summary.deferred > 90)
    }

    @Test func retryAfterIsHonouredAndPermanentRejectionsAreNotRetried() async throws {
        let transport = ScriptedTransport { id, attempt in
            switch (id, attempt) {
            case ("tt1000001", 1):
                .success(HTTPResponse(status: 429, body: Array("slow down".utf8), retryAfter: "0"))
            case ("tt1000002", _): ScriptedTransport.error(404, "Not here")
            default: ScriptedTransport.film(id)
            }
        }
        let (job, store) = try job(Self.ids(3), transport: transport)
        let summary = try await job.run()
        #expect(summary.fetched == 2 && summary.failed == 1)
        #expect(transport.requested.filter { $0 == "tt1000001" }.count == 2)
        #expect(transport.requested.filter { $0 == "tt1000002" }.count == 1)
        #expect(try store.lookup("tt1000002")?.httpStatus == 404)
    }

    @Test func budgetCutsThePlanAndTheRestIsDeferred() async throws {
        let transport = ScriptedTransport { id, _ in ScriptedTransport.film(id) }
        let (job, store) = try job(Self.ids(30), transport: transport) {
            $0.dailyLimit = 20
            $0.reservePercent = 5
        }
        let summary = try await job.run()
        #expect(summary.calls == 19, "20 minus a 5% reserve rounded up")
        #expect(summary.fetched == 19 && summary.deferred == 11 && summary.stopReason == .budgetSpent)
        #expect(try ledgerUsed(store) == 19)
    }

    @Test func theNextQuotaDaysFirstAnswerIsRecordedAsTheObservedReset() async throws {
        let dayOne = Date(timeIntervalSince1970: 1_795_000_000)
        let clock = Mutex(dayOne)
        let limited = Mutex(true)
        let transport = ScriptedTransport { id, _ in
            limited.withLock { $0 }
                ? ScriptedTransport.error(401, "Request limit reached!") : ScriptedTransport.film(id)
        }
        let (plain, store) = try job(Self.ids(5), transport: transport)
        let job = WarmJob(
            configuration: plain.configuration, store: SQLiteBackend(store: store), transport: transport,
            time: TimeSource(clock: ContinuousClock(), wall: WallClock { clock.withLock { $0 } }),
            logger: SampleFilms.logger)
        #expect(try await job.run().stopReason == .limitReached)
        let key = APIKey("test-key-1234")!.fingerprint
        let day = QuotaDay(containing: dayOne)
        #expect(try store.ledger(key: key, day: day)?.exhaustedAt == Date(timeIntervalSince1970: 1_795_000_000))

        let dayTwo = QuotaDay(containing: dayOne).nextReset + 7 * 60
        clock.withLock { $0 = dayTwo }
        limited.withLock { $0 = false }
        let second = try await job.run()
        #expect(second.fetched == 5 && second.stopReason == nil)
        #expect(try store.ledger(key: key, day: day)?.resetObservedAt == dayTwo)
    }
}
