import Foundation

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// A cache database with six weeks of quota history, runs and films, built through the store's own API.
///
/// Key `ab12` is the busy one: a day it ran out of calls before the window, one inside it, a full
/// budget day, a one-call day, yesterday's half, and today's 120 calls; `cd34` made 30 calls today.
enum ReportFixtures {
    /// The instant the reports are read at: 2026-11-21 15:30 UTC.
    static let now = TestDates.utc(2026, 11, 21, 15, 30)
    /// The busy key.
    static let key = "ab12"
    /// The second key.
    static let otherKey = "cd34"

    /// Builds the database at `path` and returns its store.
    static func store(at path: String) throws -> CacheStore {
        let store = try CacheStore(path: path, logger: SampleFilms.logger)
        func use(_ day: String, _ calls: Int, key: String = key, limit: Int = 1_000) throws {
            _ = try store.reserveCalls(calls, key: key, day: QuotaDay(key: day)!, dailyLimit: limit, usable: .max)
        }
        try use("2026-10-20", 1_000)
        try store.markExhausted(key: key, day: "2026-10-20", at: TestDates.utc(2026, 10, 20, 20, 0))
        try store.recordResetObserved(key: key, before: "2026-10-21", at: TestDates.utc(2026, 10, 21, 0, 7, 30))
        try use("2026-10-25", 950)
        try use("2026-11-01", 400)
        try store.markExhausted(key: key, day: "2026-11-01", at: TestDates.utc(2026, 11, 1, 18, 0))
        try store.recordResetObserved(key: key, before: "2026-11-02", at: TestDates.utc(2026, 11, 2, 0, 5))
        try use("2026-11-10", 1)
        try use("2026-11-20", 500)
        try use("2026-11-21", 120)
        try use("2026-11-21", 30, key: otherKey)

        try run(store, key: key, at: TestDates.utc(2026, 10, 19, 2, 0), calls: 900, fetched: 880, outcome: "done")
        try run(
            store, key: key, at: TestDates.utc(2026, 11, 1, 2, 0), calls: 400, fetched: 390, notFound: 9,
            outcome: "limit-reached")
        try run(
            store, key: key, at: TestDates.utc(2026, 11, 20, 2, 0), calls: 500, fetched: 480, notFound: 12,
            failed: 8, outcome: "done")
        try run(
            store, key: otherKey, at: TestDates.utc(2026, 11, 21, 1, 0), calls: 30, fetched: 30,
            outcome: "error: OMDb unreachable: connection refused")
        _ = try store.beginRun(startedAt: TestDates.utc(2026, 11, 21, 2, 0), key: key)
        return store
    }

    /// Records one finished run.
    static func run(
        _ store: CacheStore, key: String, at start: Date, calls: Int, fetched: Int, notFound: Int = 0,
        failed: Int = 0, outcome: String
    ) throws {
        let id = try store.beginRun(startedAt: start, key: key)
        var summary = WarmSummary()
        summary.considered = fetched + notFound + failed
        summary.fetched = fetched
        summary.notFound = notFound
        summary.failed = failed
        summary.calls = calls
        try store.finishRun(id: id, summary: summary, finishedAt: start + 600, outcome: outcome)
    }
}
