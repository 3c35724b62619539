import Foundation
import Testing

/// The SQLite reliability suites' fault storm and kill loop, run by the real binary on a PostgreSQL
/// cache: the same test code (``Reliability/FaultStormTests``, ``Reliability/KillTests``) and the same
/// promises. No ID is lost, the ledger never counts fewer calls than the stand-in served, nothing
/// committed is lost, and no run is left open after the last one.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PostgresReliabilityEndToEndTests {
    /// The storm into a limit that runs out mid-run, the same day again, then the next quota day.
    @Test func aFaultStormIntoALimitLosesNoIDAndTheNextQuotaDayFinishesTheRest() async throws {
        try await offThePool {
            try Reliability.FaultStormTests(CacheDatabase(.postgresql, in: ReliabilityScratch("pg-storm"))).storm()
        }
    }

    /// Warms killed with SIGKILL at seeded random moments, each checked, then one left to finish.
    ///
    /// Fewer and shorter runs than on SQLite (a PostgreSQL warm starts slower and the server shares
    /// the two cores), yet as many kinds of moment: start-up, the schema's creation, mid-fetch.
    @Test func killedTwelveTimesAtRandomMomentsItLosesNoCommittedRowAndNeverUndercounts() async throws {
        try await offThePool {
            try Reliability.KillTests(
                CacheDatabase(.postgresql, in: ReliabilityScratch("pg-kill")), films: 5_000, iterations: 12,
                mostCalls: 400
            ).killLoop()
        }
    }
}
