import Foundation
import Synchronization
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

@Suite struct QuotaLedgerTests {
    let dir = TemporaryDirectory()

    /// A wall clock a test moves by hand.
    final class SteppedWallClock: Sendable {
        private let now: Mutex<Date>
        init(_ start: Date) { now = Mutex(start) }
        var date: Date { now.withLock { $0 } }
        func set(_ date: Date) { now.withLock { $0 = date } }
    }

    /// A gate for key `ab12` (limit 100, 95 usable, blocks of 8) on a new database, on a stepped wall clock.
    func steppedGate(_ file: String, from start: Date) throws -> (CacheStore, QuotaGate, SteppedWallClock) {
        let store = try CacheStore(path: dir.file(file), logger: SampleFilms.logger)
        let wall = SteppedWallClock(start)
        let gate = QuotaGate(
            store: SQLiteBackend(store: store), key: "ab12", dailyLimit: 100, usable: 95, block: 8,
            time: TimeSource(clock: ContinuousClock(), wall: WallClock { wall.date }))
        return (store, gate, wall)
    }

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
                        store: SQLiteBackend(store: store), key: "ab12", dailyLimit: 500, usable: 475, block: 7,
                        time: TimeSource(clock: ContinuousClock(), wall: .fixed(TestDates.utc(2026, 11, 21, 12, 0))),
                        quotaDay: { _ in "2026-11-21" })
                    var taken = 0
                    while try await gate.acquire() { taken += 1 }
                    return taken
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(granted == 475)
        #expect(try stores[0].ledger(key: "ab12", day: "2026-11-21")?.used == 475)
    }

    @Test func gateReturnsUnsentReservations() async throws {
        let store = try CacheStore(path: dir.file("q.sqlite"), logger: SampleFilms.logger)
        let gate = QuotaGate(
            store: SQLiteBackend(store: store), key: "ab12", dailyLimit: 100, usable: 95, block: 8,
            time: TimeSource(clock: ContinuousClock(), wall: .fixed(TestDates.utc(2026, 11, 21, 12, 0))),
            quotaDay: { _ in "2026-11-21" })
        #expect(try await gate.acquire())
        #expect(try await gate.acquire())
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 8)
        try await gate.finish()
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 2)
        #expect(try await gate.acquire() == false)
    }

    @Test func blocksGrowWhileCallsGoFastAndShrinkWhenTheySlow() async throws {
        let store = try CacheStore(path: dir.file("blocks.sqlite"), logger: SampleFilms.logger)
        let clock = ManualClock()
        let gate = QuotaGate(
            store: SQLiteBackend(store: store), key: "ab12", dailyLimit: 10_000, usable: 10_000, block: 8,
            time: TimeSource(clock: clock, wall: .fixed(TestDates.utc(2026, 11, 21, 12, 0))),
            quotaDay: { _ in "2026-11-21" })
        var used = 0
        var taken = 0
        /// Takes `count` calls `pace` apart; returns each reservation's size, and the calls still
        /// unsent (reserved before it, not yet taken) when it was made.
        func take(_ count: Int, pace: Duration) async throws -> [(size: Int, left: Int)] {
            var reservations: [(size: Int, left: Int)] = []
            for _ in 0..<count {
                clock.advance(by: pace)
                let before = used
                #expect(try await gate.acquire())
                taken += 1
                used = try store.ledger(key: "ab12", day: "2026-11-21")?.used ?? 0
                if used > before { reservations.append((used - before, before - (taken - 1))) }
            }
            return reservations
        }
        // Fast: 8, then doubling up to 8 times the cap; once grown, each next block is reserved
        // while half the last one is left, so no call waits for the ledger.
        let fast = try await take(8 + 16 + 32 + 64 * 3, pace: .microseconds(100))
        // (`left` counts the call that asked for the next block.)
        #expect(fast.map(\.size) == [8, 16, 32, 64, 64, 64, 64])
        #expect(fast.map(\.left) == [0, 0, 9, 17, 33, 33, 33])
        // Slow ones halve it back to the cap, never below; at the cap a block is reserved when spent.
        let slow = try await take(64 + 32 + 16 + 8 * 3, pace: .milliseconds(40))
        #expect(slow.map(\.size) == [32, 16, 8, 8, 8])
        #expect(slow.map(\.left) == [33, 17, 9, 0, 0])
        try await gate.finish()
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == taken)
    }

    @Test func aBlockAskedAheadWhenTheDayHasNoRoomLeftStillHandsOutWhatIsReserved() async throws {
        let store = try CacheStore(path: dir.file("ahead.sqlite"), logger: SampleFilms.logger)
        let gate = QuotaGate(
            store: SQLiteBackend(store: store), key: "ab12", dailyLimit: 100, usable: 24, block: 8,
            time: TimeSource(clock: ContinuousClock(), wall: .fixed(TestDates.utc(2026, 11, 21, 12, 0))),
            quotaDay: { _ in "2026-11-21" })
        var granted = 0
        while try await gate.acquire() { granted += 1 }
        // 8, then 16 (calls going fast): the last 16 asked ahead found no room, and every one
        // reserved was still handed out.
        #expect(granted == 24)
        try await gate.finish()
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 24)
    }

    /// A block asked ahead found the day's budget spent while 8 calls were still reserved; a minute
    /// passes before they are taken, so they go back to the ledger: they are room again, and the
    /// run still spends its whole budget (it stopped 8 short).
    @Test func callsGivenBackAtAMinuteAfterTheBudgetWasSpentAheadAreStillSpent() async throws {
        let store = try CacheStore(path: dir.file("spent-ahead.sqlite"), logger: SampleFilms.logger)
        let wall = SteppedWallClock(TestDates.utc(2026, 11, 21, 10, 0, 30))
        // A clock that stands still: every block is used up at once, so blocks grow (8, then 16).
        let gate = QuotaGate(
            store: SQLiteBackend(store: store), key: "ab12", dailyLimit: 100, usable: 24, block: 8,
            time: TimeSource(clock: ManualClock(), wall: WallClock { wall.date }))
        // 24 reserved; at the 16th call the next block, asked ahead, finds no room.
        for _ in 0..<16 { #expect(try await gate.acquire()) }
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 24)
        wall.set(TestDates.utc(2026, 11, 21, 10, 1, 5))
        var granted = 16
        while try await gate.acquire() { granted += 1 }
        #expect(granted == 24)
        try await gate.finish()
        let first = QuotaDay.minute(of: TestDates.utc(2026, 11, 21, 10, 0))
        #expect(try store.callsByMinute(key: "ab12") == [first: 16, first + 1: 8])
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 24)
    }

    @Test func aGateCrossingMidnightChargesEachCallToTheDayItIsTakenOn() async throws {
        let (store, gate, wall) = try steppedGate("midnight.sqlite", from: TestDates.utc(2026, 11, 21, 23, 59, 58))
        for _ in 0..<3 { #expect(try await gate.acquire()) }
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 8, "a block reserved before midnight")
        wall.set(TestDates.utc(2026, 11, 22, 0, 0, 1))
        for _ in 0..<2 { #expect(try await gate.acquire()) }
        #expect(
            try store.ledger(key: "ab12", day: "2026-11-21")?.used == 3, "the old day keeps only what was sent on it")
        #expect(try store.ledger(key: "ab12", day: "2026-11-22")?.used == 8)
        gate.giveBack()
        try await gate.finish()
        #expect(
            try store.ledger(key: "ab12", day: "2026-11-22")?.used == 1, "sent after midnight, minus one never sent")
        #expect(gate.sent == 4)
    }

    @Test func runsNamingDifferentQuotaTimeZonesShareOneBudget() throws {
        let store = try CacheStore(path: dir.file("zones.sqlite"), logger: SampleFilms.logger)
        let losAngeles = TestDates.zone("America/Los_Angeles")
        let evening = TestDates.utc(2026, 11, 21, 20, 0)
        let utcDay = QuotaDay(containing: evening)
        let laDay = QuotaDay(containing: evening, in: losAngeles)
        #expect(utcDay.key == "2026-11-21" && laDay.key == "2026-11-21" && utcDay.start != laDay.start)
        let minute = QuotaDay.minute(of: evening)
        #expect(try store.reserveCalls(60, key: "ab12", day: utcDay, minute: minute, dailyLimit: 100, usable: 95) == 60)
        // The same instant in Los Angeles: the 60 calls were sent within its day too.
        #expect(try store.reserveCalls(60, key: "ab12", day: laDay, minute: minute, dailyLimit: 100, usable: 95) == 35)
        #expect(try store.ledger(key: "ab12", day: laDay)?.used == 95)
        #expect(try store.ledger(key: "ab12", day: utcDay)?.used == 95)
        // The next UTC day begins at 00:00Z: none of those calls fall in it.
        let night = TestDates.utc(2026, 11, 22, 1, 0)
        let nextUTC = QuotaDay(containing: night)
        #expect(try store.ledger(key: "ab12", day: nextUTC) == nil)
        // A limit seen by the Los Angeles run at 07:00Z (still its 21st) stops the UTC run's 22nd too.
        try store.markExhausted(key: "ab12", day: laDay.key, at: TestDates.utc(2026, 11, 22, 7, 0))
        #expect(
            try store.reserveCalls(
                1, key: "ab12", day: nextUTC, minute: QuotaDay.minute(of: night), dailyLimit: 100, usable: 95)
                == 0)
        #expect(try store.ledger(key: "ab12", day: nextUTC)?.exhaustedAt == TestDates.utc(2026, 11, 22, 7, 0))
    }

    @Test func aGateChargesEachCallToTheMinuteItIsTakenIn() async throws {
        let (store, gate, wall) = try steppedGate("minutes.sqlite", from: TestDates.utc(2026, 11, 21, 10, 0, 30))
        for _ in 0..<3 { #expect(try await gate.acquire()) }
        wall.set(TestDates.utc(2026, 11, 21, 10, 1, 5))
        for _ in 0..<2 { #expect(try await gate.acquire()) }
        try await gate.finish()
        let first = QuotaDay.minute(of: TestDates.utc(2026, 11, 21, 10, 0))
        let byMinute = try store.callsByMinute(key: "ab12")
        #expect(byMinute == [first: 3, first + 1: 2], "\(byMinute)")
        #expect(try store.ledger(key: "ab12", day: "2026-11-21")?.used == 5)
    }

    @Test func aLimitReachedOnADayWithoutARowStillLandsAndStopsThatDay() throws {
        let store = try CacheStore(path: dir.file("mark.sqlite"), logger: SampleFilms.logger)
        try store.markExhausted(
            key: "ab12", day: "2026-11-22", dailyLimit: 100, at: TestDates.utc(2026, 11, 22, 0, 0, 5))
        #expect(try store.ledger(key: "ab12", day: "2026-11-22")?.exhaustedAt != nil)
        #expect(try store.reserveCalls(1, key: "ab12", day: "2026-11-22", dailyLimit: 100, usable: 95) == 0)
    }

    @Test func aRunLeftUnfinishedIsClosedAsKilledWithTheCallsItReserved() throws {
        let store = try CacheStore(path: dir.file("killed.sqlite"), logger: SampleFilms.logger)
        let first = try store.beginRun(startedAt: TestDates.utc(2026, 11, 21, 3, 0), key: "ab12")
        #expect(
            try store.reserveCalls(8, key: "ab12", day: "2026-11-21", dailyLimit: 100, usable: 95, runID: first) == 8)
        try store.releaseCalls(2, key: "ab12", day: "2026-11-21", runID: first)
        _ = try store.beginRun(startedAt: TestDates.utc(2026, 11, 21, 4, 0), key: "ab12")
        let runs = try store.runs(key: nil, since: .distantPast)
        #expect(runs.count == 2 && runs[0].outcome == "killed" && runs[0].calls == 6 && runs[0].finishedAt != nil)
        #expect(runs[1].finishedAt == nil)
    }
}
