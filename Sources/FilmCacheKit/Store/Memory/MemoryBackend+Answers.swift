import Foundation

/// What `filmcache serve` keeps beside the films, in memory.
extension MemoryBackend {
    package func answer(for query: String) async throws(StoreError) -> CachedAnswer? { answers[query] }

    package func storeAnswers(_ stored: [CachedAnswer]) async throws(StoreError) {
        for answer in stored {
            var answer = answer
            answer.answeredAt = answer.answeredAt.storedSecond
            answers[answer.query] = answer
        }
    }

    /// Adds the counts of one or more requests; the later request stays the film's latest.
    package func recordDemand(_ counts: [String: Int], at instant: Date) async throws(StoreError) {
        let at = instant.storedSecond
        for (id, count) in AnswerDemand.counted(counts) {
            let held = demandRows[id]
            demandRows[id] = DemandEntry(
                imdbID: id, title: nil, requests: (held?.requests ?? 0) + count,
                lastRequestedAt: max(held?.lastRequestedAt ?? at, at))
        }
    }

    package func demand(of ids: [String]) async throws(StoreError) -> [String: Int] {
        var demand: [String: Int] = [:]
        for id in ids { if let row = demandRows[id], row.requests > 0 { demand[id] = row.requests } }
        return demand
    }

    /// The most requested films, most first, ties by ID; titles from the film each ID names (through
    /// its alias, as the plan reads it).
    package func mostRequested(limit: Int) async throws(StoreError) -> [DemandEntry] {
        demandRows.values.filter { $0.requests > 0 }
            .sorted { $0.requests != $1.requests ? $0.requests > $1.requests : Self.precedes($0.imdbID, $1.imdbID) }
            .prefix(max(limit, 0))
            .map { row in
                var row = row
                row.title = films[aliases[row.imdbID]?.imdbID ?? row.imdbID]?.title
                return row
            }
    }
}
