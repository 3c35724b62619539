import Foundation
import Synchronization
import Testing

@testable import FilmCacheKit

@Suite struct QuotaLedgerTests {
    let dir = TemporaryDirectory()

    @Test func reservationsStopAtTheUsableBudgetAndReleasesGiveBack() throws {
        let store = try CacheStore(path: dir.file("q.sqlite"), logger: SampleFilms.logger)
        #expect(try store.reserveCalls(8, key: "ab12", day: "2026-11-21", dailyLimit: 20, usable: 19) == 8)
        #expect(try store.reserveCalls(8, key: "ab12", day: "2026-11-21", dailyLimit: 20, usable: 19) == 8)
        #expect(try store.reserveCalls(8, key: "ab12", day: "2026-11-21", dailyLimit: 20, usable: 19) == 3)
        #expect(try store.reserveCalls(8, key: "ab12", day: "2026-11-21", dailyLimit: 20, usable: 19) == 0)
        try store.releaseCalls(2, key: "ab12", day: "2026-11-21")
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 17)
        // Another day and another key have budgets of their own.
        #expect(try store.reserveCalls(5, key: "ab12", day: "2026-11-22", dailyLimit: 20, usable: 19) == 5)
        #expect(try store.reserveCalls(5, key: "cd34", day: "2026-11-21", dailyLimit: 20, usable: 19) == 5)
    }

    @Test func anExhaustedDayGrantsNothing() throws {
        let store = try CacheStore(path: dir.file("q.sqlite"), logger: SampleFilms.logger)
        _ = try store.reserveCalls(1, key: "ab12", day: "2026-11-21", dailyLimit: 1000, usable: 950)
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        try store.markExhausted(key: "ab12", day: "2026-11-21", at: at)
        #expect(try store.reserveCalls(1, key: "ab12", day: "2026-11-21", dailyLimit: 1000, usable: 950) == 0)
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.exhaustedAt == at)
    }

    @Test func theFirstSuccessAfterAnExhaustedDayIsRecordedOnceAsTheObservedReset() throws {
        let store = try CacheStore(path: dir.file("q.sqlite"), logger: SampleFilms.logger)
        let exhausted = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try store.reserveCalls(1, key: "ab12", day: "2026-11-20", dailyLimit: 1000, usable: 950)
        try store.markExhausted(key: "ab12", day: "2026-11-20", at: exhausted)
        _ = try store.reserveCalls(1, key: "ab12", day: "2026-11-19", dailyLimit: 1000, usable: 950)
        let reset = exhausted + 3 * 3600
        try store.recordResetObserved(key: "ab12", before: "2026-11-21", at: reset)
        try store.recordResetObserved(key: "ab12", before: "2026-11-21", at: reset + 60)
        #expect(try store.ledger(key: "ab12", day: "2026-11-20")?.resetObservedAt == reset)
        #expect(try store.ledger(key: "ab12", day: "2026-11-19")?.resetObservedAt == nil)
        // A success on the exhausted day itself is not a reset.
        try store.recordResetObserved(key: "cd34", before: "2026-11-20", at: reset)
        #expect(try store.ledger(key: "cd34", day: "2026-11-20") == nil)
    }

    @Test func twoConnectionsOnOneFileShareOneBudget() async throws {
        let path = dir.file("shared.sqlite")
        let stores = [
            try CacheStore(path: path, logger: SampleFilms.logger),
            try CacheStore(path: path, logger: SampleFilms.logger),
        ]
        let granted = try await withThrowingTaskGroup(of: Int.self) { group in
            for store in stores {
                group.addTask {
                    let gate = QuotaGate(
                        store: store, key: "ab12", day: "2026-11-21", dailyLimit: 500, usable: 475, block: 7)
                    var taken = 0
                    while try gate.acquire() { taken += 1 }
                    return taken
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(granted == 475)
        #expect(try stores[0].ledger(key: "ab12", day: "2026-11-21")?.used == 475)
    }

    @Test func gateReturnsUnsentReservations() throws {
        let store = try CacheStore(path: dir.file("q.sqlite"), logger: SampleFilms.logger)
        let gate = QuotaGate(store: store, key: "ab12", day: "2026-11-21", dailyLimit: 100, usable: 95, block: 8)
        #expect(try gate.acquire())
        #expect(try gate.acquire())
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 8)
        try gate.finish()
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 2)
        #expect(try gate.acquire() == false)
    }

    @Test func blocksGrowWhileCallsGoFastAndShrinkWhenTheySlow() throws {
        let store = try CacheStore(path: dir.file("blocks.sqlite"), logger: SampleFilms.logger)
        let start = ContinuousClock.now
        let elapsed = Mutex(Duration.zero)
        let gate = QuotaGate(
            store: store, key: "ab12", day: "2026-11-21", dailyLimit: 10_000, usable: 10_000, block: 8,
            now: { start + elapsed.withLock { $0 } })
        /// Takes a whole block `pace` after the last one; returns how many calls the ledger grew by.
        func block(after pace: Duration) throws -> Int {
            let before = try store.ledger(key: "ab12", day: "2026-11-21")?.used ?? 0
            elapsed.withLock { $0 += pace }
            #expect(try gate.acquire())
            let after = try store.ledger(key: "ab12", day: "2026-11-21")?.used ?? 0
            for _ in 1..<(after - before) { #expect(try gate.acquire()) }
            return after - before
        }
        // Fast: 8, then doubling up to 8 times the cap.
        #expect(try [0, 10, 10, 10, 10, 10].map { try block(after: .milliseconds($0)) } == [8, 16, 32, 64, 64, 64])
        // A block in between keeps its size; slow ones halve it back to the cap, never below.
        #expect(try [200, 900, 900, 900, 900].map { try block(after: .milliseconds($0)) } == [64, 32, 16, 8, 8])
        try gate.finish()
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 8 + 16 + 32 + 64 * 4 + 32 + 16 + 8 + 8)
    }
}
