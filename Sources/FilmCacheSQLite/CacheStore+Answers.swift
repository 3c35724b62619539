import FilmCacheKit
import Foundation

/// The `answers` and `demand` tables: what `filmcache serve` keeps beside the films.
extension CacheStore {
    /// The stored answer to `query`, or `nil`.
    public func answer(for query: String) throws(StoreError) -> CachedAnswer? {
        try withConnection { c throws(StoreError) in
            try c.db.cached("SELECT body, found, answered_at FROM answers WHERE query = ?").query([.text(query)]) {
                row in
                CachedAnswer(
                    query: query, body: row.bytes(0) ?? [], found: row.int(1) == 1,
                    answeredAt: row.text(2).flatMap(Timestamp.parse) ?? .distantPast)
            }.first
        }
    }

    /// Stores `answers` in one transaction, each replacing any earlier answer to its query.
    public func storeAnswers(_ answers: [CachedAnswer]) throws(StoreError) {
        guard !answers.isEmpty else { return }
        try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                let upsert = try c.db.cached(
                    """
                    INSERT INTO answers (query, found, answered_at, body) VALUES (?, ?, ?, ?)
                    ON CONFLICT (query) DO UPDATE SET
                        body = excluded.body, found = excluded.found, answered_at = excluded.answered_at
                    """)
                for answer in answers {
                    try upsert.run(
                        [
                            .text(answer.query), .integer(answer.found ? 1 : 0),
                            .text(Timestamp.format(answer.answeredAt)),
                        ],
                        blob: answer.body, at: 4)
                }
            }
        }
    }

    /// Adds `counts` to each film's demand in one transaction; `instant` becomes a film's
    /// `last_requested_at` unless it already holds a later one. Counts below one add nothing.
    public func recordDemand(_ counts: [String: Int], at instant: Date) throws(StoreError) {
        let counts = AnswerDemand.counted(counts)
        guard !counts.isEmpty else { return }
        try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                let add = try c.db.cached(
                    """
                    INSERT INTO demand (imdb_id, requests, last_requested_at) VALUES (?, ?, ?)
                    ON CONFLICT (imdb_id) DO UPDATE SET
                        requests = requests + excluded.requests,
                        last_requested_at = max(last_requested_at, excluded.last_requested_at)
                    """)
                let at = Timestamp.format(instant)
                for (id, count) in counts { try add.run([.text(id), .integer(count), .text(at)]) }
            }
        }
    }

    /// The demand of each of `ids` that has any.
    public func demand(of ids: [String]) throws(StoreError) -> [String: Int] {
        guard !ids.isEmpty else { return [:] }
        return try withConnection { c throws(StoreError) in
            var demand: [String: Int] = [:]
            try c.db.cached(
                "SELECT imdb_id, requests FROM demand WHERE imdb_id IN (SELECT value FROM json_each(?)) AND requests > 0"
            ).forEach([.text(JSONText.array(ids))]) { row throws(StoreError) in
                demand[row.text(0) ?? ""] = row.int(1) ?? 0
            }
            return demand
        }
    }

    /// The `limit` most requested films, most first, ties by ID; titles from the film each ID names
    /// (through its alias, as the plan reads it).
    public func mostRequested(limit: Int) throws(StoreError) -> [DemandEntry] {
        try withConnection { c throws(StoreError) in
            try c.db.cached(
                """
                SELECT d.imdb_id, f.title, d.requests, d.last_requested_at
                FROM demand AS d
                LEFT JOIN aliases AS a ON a.asked_id = d.imdb_id
                LEFT JOIN films AS f ON f.imdb_id = coalesce(a.imdb_id, d.imdb_id)
                WHERE d.requests > 0
                ORDER BY d.requests DESC, d.imdb_id LIMIT ?
                """
            ).query([.integer(max(limit, 0))]) { row in
                DemandEntry(
                    imdbID: row.text(0) ?? "", title: row.text(1), requests: row.int(2) ?? 0,
                    lastRequestedAt: row.text(3).flatMap(Timestamp.parse) ?? .distantPast)
            }
        }
    }
}
