import Foundation

/// The history of warms in memory.
extension MemoryBackend {
    /// Starts a run record, first closing every run left unfinished: with one writer, an unfinished
    /// run is one that was killed, closed as `killed` with the calls the ledger counted for it.
    package func beginRun(startedAt: Date, key: String) async throws(StoreError) -> Int {
        let at = startedAt.storedSecond
        for id in runRows.keys where runRows[id]?.record.finishedAt == nil {
            guard var row = runRows[id] else { continue }
            row.record.finishedAt = at
            row.record.outcome = "killed"
            row.record.calls = row.reservedCalls
            runRows[id] = row
        }
        lastRunID += 1
        runRows[lastRunID] = RunRow(
            record: RunRecord(id: lastRunID, startedAt: at, finishedAt: nil, keyFingerprint: key, outcome: nil),
            reservedCalls: 0)
        return lastRunID
    }

    package func finishRun(id: Int, summary: WarmSummary, finishedAt: Date, outcome: String) async throws(StoreError) {
        guard var row = runRows[id] else { return }
        row.record.finishedAt = finishedAt.storedSecond
        row.record.considered = summary.considered
        row.record.fresh = summary.fresh
        row.record.fetched = summary.fetched
        row.record.notFound = summary.notFound
        row.record.failed = summary.failed
        row.record.calls = summary.calls
        row.record.outcome = outcome
        runRows[id] = row
    }

    package func runs(key: String?, since: Date) async throws(StoreError) -> [RunRecord] {
        let since = since.storedSecond
        return runRows.values.map(\.record)
            .filter { run in run.startedAt >= since && key.map { run.keyFingerprint == $0 } ?? true }
            .sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
    }

    package func lastCompletedRunFinish() async throws(StoreError) -> Date? {
        runRows.values.map(\.record)
            .filter { $0.outcome.map(RunRecord.completedOutcomes.contains) == true }
            .compactMap(\.finishedAt).max()
    }
}
