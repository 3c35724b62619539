import FilmCacheKit
import Foundation
import PostgresNIO

/// Planning and counting: the worklist goes into a temporary table on one held connection, its
/// states come back in one joined read, and `Planner` places each ID as it does for SQLite.
extension PostgresBackend {
    /// Worklist entries sent in one statement (arrays bound whole, unnested by the server).
    static let worklistChunk = 10_000

    public func states(of ids: [String]) async throws(StoreError) -> [CachedState] {
        // A list of IDs names no title, so no title's standing (the only use of the instant) is read.
        try await withWorklist(Worklist(ids: ids), at: .distantPast) { rows, _ in
            rows.sorted { $0.position < $1.position }.map(\.state)
        }
    }

    /// Plans `worklist` as `CacheStore.plan` does: each distinct ID placed by `planner`, due IDs and
    /// titles to resolve ordered as `DueRank.comesBefore` orders them (kind, score high to low,
    /// worklist position; an ID before a title where all three tie, as SQLite reads them back).
    public func plan(_ worklist: Worklist, planner: Planner, now: Date, budget: Int?) async throws(StoreError) -> Plan {
        try await withWorklist(worklist, at: now) { rows, titles in
            var plan = Plan()
            plan.titles = titles.counts
            var due: [(rank: DueRank, target: FetchTarget)] = []
            for row in rows {
                let placement = planner.place(
                    row.state, demand: row.demand, requests: row.requests, position: row.position, now: now)
                plan.count(placement)
                if case .due(let rank) = placement { due.append((rank, .id(row.state.imdbID))) }
            }
            // A title to resolve is a film not cached yet: it ranks as a missing ID named as often.
            for title in titles.due {
                let rank = DueRank(
                    kind: .missing, score: Planner.weight(named: title.demand, requests: 0), position: title.position)
                due.append((rank, .title(title.entry)))
            }
            let order = due.indices.sorted { a, b in
                let (x, y) = (due[a].rank, due[b].rank)
                return x.comesBefore(y) || (!y.comesBefore(x) && a < b)
            }
            for index in order {
                let rank = due[index].rank
                plan.schedule(
                    due[index].target, failedBefore: rank.failedBefore, requests: rank.requests, budget: budget)
            }
            return plan
        }
    }

    /// One distinct worklist ID as the cache knows it.
    struct WorklistRow: Sendable {
        var state: CachedState
        var position: Int
        var demand: Int
        /// How often apps asked for the ID (0 when never, or the database has no `demand` yet).
        var requests: Int
    }

    /// Loads `worklist` into a temporary table (titles the index knows at `now` standing as their
    /// IDs), reads every distinct ID's state in one statement and hands them to `body`; one
    /// transaction on one connection, the table dropped at its end.
    private func withWorklist<T: Sendable>(
        _ worklist: Worklist, at now: Date, _ body: @escaping @Sendable ([WorklistRow], TitlePlan) throws -> T
    ) async throws(StoreError) -> T {
        let requests = hasAnswers ? "d.requests" : "NULL::bigint"
        let requestsJoin = hasAnswers ? "LEFT JOIN demand AS d ON d.imdb_id = w.imdb_id" : ""
        return try await transaction { c, logger in
            let titles = try await Self.titlePlan(worklist, c, logger, at: now)
            // The entries as SQLite's plan numbers them: each file's IDs, then its titles the index knows.
            var ids: [String] = []
            var files: [Int] = []
            ids.reserveCapacity(worklist.entryCount)
            files.reserveCapacity(worklist.entryCount)
            worklist.forEachFile { file, fileIDs, entries in
                for id in fileIDs {
                    ids.append(id)
                    files.append(file)
                }
                for entry in entries {
                    guard let id = titles.resolved[entry.query.key] else { continue }
                    ids.append(id)
                    files.append(file)
                }
            }
            try await c.run(
                """
                CREATE TEMP TABLE worklist (imdb_id text COLLATE "C" NOT NULL, position bigint NOT NULL,
                                            file bigint NOT NULL) ON COMMIT DROP
                """, logger)
            for start in stride(from: 0, to: ids.count, by: Self.worklistChunk) {
                let range = start..<min(start + Self.worklistChunk, ids.count)
                let chunkIDs = Array(ids[range])
                let positions = Array(range)
                let chunkFiles = Array(files[range])
                try await c.run(
                    """
                    INSERT INTO worklist (imdb_id, position, file)
                    SELECT * FROM unnest(\(chunkIDs)::text[], \(positions)::bigint[], \(chunkFiles)::bigint[])
                    """, logger)
            }
            try await c.run("ANALYZE worklist", logger)
            // Demand is the number of files naming the ID; its position, where it first appears;
            // requests, how often apps asked for it (a database from before `demand` has none).
            var rows: [WorklistRow] = []
            rows.reserveCapacity(ids.count)
            for try await row in try await c.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT w.imdb_id, f.fetched_at, f.data_version, l.status, l.next_attempt_at, l.attempts,
                               f.type, f.year_start, f.year_end, to_char(f.released, 'YYYY-MM-DD'), w.position,
                               w.demand, \(requests)
                        FROM (SELECT imdb_id, min(position) AS position, count(DISTINCT file) AS demand
                              FROM worklist GROUP BY imdb_id) AS w
                        LEFT JOIN aliases AS a ON a.asked_id = w.imdb_id
                        LEFT JOIN films AS f ON f.imdb_id = coalesce(a.imdb_id, w.imdb_id)
                        LEFT JOIN lookups AS l ON l.imdb_id = w.imdb_id
                        \(requestsJoin)
                        """), logger: logger)
            {
                let (
                    id, fetchedAt, dataVersion, status, next, attempts, type, yearStart, yearEnd, released, position,
                    demand, requests
                ) = try row.decode(
                    (String, Date?, Int?, String?, Date?, Int?, String?, Int?, Int?, String?, Int, Int, Int?).self)
                let state = CachedState(
                    imdbID: id, fetchedAt: fetchedAt, dataVersion: dataVersion,
                    lookupStatus: status.flatMap(LookupStatus.init(rawValue:)), nextAttemptAt: next,
                    lookupAttempts: attempts,
                    age: fetchedAt == nil
                        ? nil : TitleAge(type: type, yearStart: yearStart, yearEnd: yearEnd, released: released))
                rows.append(WorklistRow(state: state, position: position, demand: demand, requests: requests ?? 0))
            }
            return try body(rows, titles)
        }
    }

    /// Looks every distinct title of `worklist` up in the title index in one statement, at `now`.
    private static func titlePlan(
        _ worklist: Worklist, _ c: PostgresConnection, _ logger: Logger, at now: Date
    ) async throws -> TitlePlan {
        guard !worklist.titles.isEmpty else { return TitlePlan() }
        let titles = TitlePlan.titles(of: worklist)
        var rows = [TitleIndexRow?](repeating: nil, count: titles.count)
        for row in try await c.rows(
            """
            SELECT k.ordinality, t.imdb_id, t.next_attempt_at, t.asked_title
            FROM unnest(\(titles.map(\.key.title))::text[], \(titles.map(\.key.year))::bigint[],
                        \(titles.map(\.key.type))::text[]) WITH ORDINALITY AS k(title_key, year, type, ordinality)
            JOIN titles AS t ON t.title_key = k.title_key AND t.year = k.year AND t.type = k.type
            """, logger)
        {
            let (ordinality, imdbID, next, asked) = try row.decode((Int, String?, Date?, String).self)
            rows[ordinality - 1] = TitleIndexRow(imdbID: imdbID, nextAttemptAt: next, askedTitle: asked)
        }
        return TitlePlan(titles, rows: rows, worklist: worklist, at: now)
    }

    /// Counts every film by type, version, fetch age and freshness at `now` (as `CacheStore.census`),
    /// the rows streamed in one repeatable-read transaction so the counts agree while warms commit.
    public func census(freshness: FreshnessPolicy, now: Date, currentDataVersion: Int) async throws(StoreError)
        -> CacheCensus
    {
        try await transaction { c, logger in
            try await c.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger)
            var census = CacheCensus()
            for try await row in try await c.query(
                """
                SELECT fetched_at, type, year_start, year_end, to_char(released, 'YYYY-MM-DD'), data_version
                FROM films
                """, logger: logger)
            {
                let (fetchedAt, type, yearStart, yearEnd, released, dataVersion) = try row.decode(
                    (Date, String?, Int?, Int?, String?, Int).self)
                census.add(
                    fetchedAt: fetchedAt,
                    age: TitleAge(type: type, yearStart: yearStart, yearEnd: yearEnd, released: released),
                    type: type, dataVersion: dataVersion, now: now, freshness: freshness,
                    currentDataVersion: currentDataVersion)
            }
            for row in try await c.rows("SELECT status, count(*) FROM lookups GROUP BY status", logger) {
                let (status, count) = try row.decode((String, Int).self)
                switch LookupStatus(rawValue: status) {
                case .notFound?: census.notFound = count
                case .failed?: census.failed = count
                case nil: break
                }
            }
            return census
        }
    }
}
