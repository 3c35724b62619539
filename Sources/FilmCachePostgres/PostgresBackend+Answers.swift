import FilmCacheKit
import Foundation
import PostgresNIO

/// The `answers` and `demand` tables: the same rules as `CacheStore+Answers.swift`, safe with any
/// number of `serve` processes writing at once. A read-only open of a database from before them
/// reads them as empty.
extension PostgresBackend {
    public func answer(for query: String) async throws(StoreError) -> CachedAnswer? {
        guard hasAnswers else { return nil }
        return try await withConnection { c, logger in
            try await c.rows("SELECT body, found, answered_at FROM answers WHERE query = \(query)", logger).first.map {
                row in
                let (body, found, answeredAt) = try row.decode((ByteBuffer, Bool, Date).self)
                return CachedAnswer(
                    query: query, body: Array(body.readableBytesView), found: found, answeredAt: answeredAt)
            }
        }
    }

    /// Stores `answers` in one statement, the batch bound as one array a column. Of two answers to
    /// one query the later in the order given stays: only it is sent (one statement may not update
    /// a row twice).
    public func storeAnswers(_ answers: [CachedAnswer]) async throws(StoreError) {
        let answers = CachedAnswer.lastOfEachQuery(answers)
        guard !answers.isEmpty else { return }
        let queries = answers.map(\.query)
        let bodies = answers.map { ByteBuffer(bytes: $0.body) }
        let found = answers.map(\.found)
        let answeredAt = answers.map(\.answeredAt.wholeSecond)
        try await withConnection { c, logger in
            try await c.run(
                """
                INSERT INTO answers (query, body, found, answered_at)
                SELECT * FROM unnest(\(queries)::text[], \(bodies)::bytea[], \(found)::boolean[],
                                     \(answeredAt)::timestamptz[])
                ON CONFLICT (query) DO UPDATE SET
                    body = excluded.body, found = excluded.found, answered_at = excluded.answered_at
                """, logger)
        }
    }

    /// Adds `counts` in one statement: `ON CONFLICT … DO UPDATE` adds to the row as it stands when
    /// the statement gets its lock, so writers on every host at once lose no request.
    public func recordDemand(_ counts: [String: Int], at instant: Date) async throws(StoreError) {
        let counts = AnswerDemand.counted(counts)
        guard !counts.isEmpty else { return }
        let ids = counts.map(\.id)
        let requests = counts.map(\.count)
        try await transaction { c, logger in
            try await c.run(
                """
                INSERT INTO demand (imdb_id, requests, last_requested_at)
                SELECT u.imdb_id, u.requests, \(instant.wholeSecond)
                FROM unnest(\(ids)::text[], \(requests)::bigint[]) AS u(imdb_id, requests)
                ON CONFLICT (imdb_id) DO UPDATE SET
                    requests = demand.requests + excluded.requests,
                    last_requested_at = greatest(demand.last_requested_at, excluded.last_requested_at)
                """, logger)
        }
    }

    public func demand(of ids: [String]) async throws(StoreError) -> [String: Int] {
        guard hasAnswers, !ids.isEmpty else { return [:] }
        return try await withConnection { c, logger in
            var demand: [String: Int] = [:]
            for row in try await c.rows(
                "SELECT imdb_id, requests FROM demand WHERE imdb_id = ANY(\(ids)::text[]) AND requests > 0", logger)
            {
                let (id, requests) = try row.decode((String, Int).self)
                demand[id] = requests
            }
            return demand
        }
    }

    public func mostRequested(limit: Int) async throws(StoreError) -> [DemandEntry] {
        guard hasAnswers else { return [] }
        return try await withConnection { c, logger in
            try await c.rows(
                """
                SELECT d.imdb_id, f.title, d.requests, d.last_requested_at
                FROM demand AS d
                LEFT JOIN aliases AS a ON a.asked_id = d.imdb_id
                LEFT JOIN films AS f ON f.imdb_id = coalesce(a.imdb_id, d.imdb_id)
                WHERE d.requests > 0
                ORDER BY d.requests DESC, d.imdb_id LIMIT \(max(limit, 0))
                """, logger
            ).map { row in
                let (id, title, requests, last) = try row.decode((String, String?, Int, Date).self)
                return DemandEntry(imdbID: id, title: title, requests: requests, lastRequestedAt: last)
            }
        }
    }
}
