import FilmCacheSQLite
import Foundation
import Logging
import Testing

@testable import FilmCacheKit

/// The serve engine's demand flusher: counts written on its timer (a manual clock), and kept when
/// written too early to be lost.
@Suite struct DemandFlusherTests {
    private static let logger = Logger(label: "demand-tests") { _ in SwiftLogNoOpLogHandler() }

    @Test func countsAreWrittenEachIntervalAndOnlyThen() async throws {
        let directory = TemporaryDirectory()
        let store = try await SQLiteBackend.open(path: directory.file("films.sqlite"), logger: Self.logger)
        let clock = ManualClock()
        let flusher = DemandFlusher(
            store: store, interval: .seconds(5), time: TimeSource(clock: clock, wall: clock.wallClock),
            logger: Self.logger)
        let running = Task { await flusher.run() }
        flusher.count("tt0000001")
        flusher.count("tt0000001")
        flusher.count("tt0000002")
        await clock.waitForSleepers(1)
        #expect(try await store.demand(of: ["tt0000001", "tt0000002"]).isEmpty, "nothing written before the interval")

        clock.advance(by: .seconds(5))
        let written = await eventually { flusher.pending.isEmpty }
        #expect(written)
        await clock.waitForSleepers(1)
        #expect(try await store.demand(of: ["tt0000001", "tt0000002"]) == ["tt0000001": 2, "tt0000002": 1])

        // Cancelled (the graceful shutdown), the loop ends; the last counts are the caller's to flush.
        flusher.count("tt0000002")
        running.cancel()
        await running.value
        #expect(flusher.pending == ["tt0000002": 1])
        await flusher.flush()
        #expect(try await store.demand(of: ["tt0000002"]) == ["tt0000002": 2])
        await store.close()
    }
}
