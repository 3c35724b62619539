import FilmCacheKit
import Foundation
import PostgresNIO

/// Runs and work claims across hosts: a run holds a lease on its row, renewed as it works, and a
/// lease on each ID it claimed; a lease that passes marks work no live process holds.
extension PostgresBackend {
    /// How long a run's row stays held without renewal, in seconds, before its first claim renews it
    /// for the claim lease: past it the run counts as killed even while its session lives (a host cut
    /// off from the server).
    static let runLease = 600.0

    /// Starts a run (see `CacheStore.beginRun`) with an id from the table's identity, unique across
    /// hosts, alive while this process's session (``LiveSession``) holds the run's lock. Unfinished
    /// runs no live session holds, or whose lease has passed, are closed first as `killed`, with the
    /// calls the ledger counted for them, and claims no live holder keeps are deleted; another
    /// host's live run keeps going.
    ///
    /// The row goes in, and the lock is taken, in one transaction on the session: no other process
    /// ever sees the row without its lock held.
    public func beginRun(startedAt: Date, key: String) async throws(StoreError) -> Int {
        let database = displayName
        return try await session.withConnection { c, logger in
            let id = try await c.withTransaction(logger: logger) { c in
                try await Self.closeGoneRuns(at: startedAt, except: nil, c, logger)
                try await c.run(Self.sweepGoneClaims(except: nil), logger)
                let rows = try await c.rows(
                    """
                    INSERT INTO runs (started_at, key_fingerprint, lease_until)
                    VALUES (\(startedAt.wholeSecond), \(key), now() + \(Self.runLease) * interval '1 second')
                    RETURNING id
                    """, logger)
                let id = try rows.first?.decode(Int.self) ?? 0
                let locked = try await c.rows(
                    PostgresQuery(unsafeSQL: "SELECT pg_try_advisory_lock(\(LiveSession.key(String(id))))"), logger)
                guard try locked.first?.decode(Bool.self) == true else {
                    throw StoreError.failed(
                        database: database, message: "another session already holds the lock of run \(id)",
                        code: "run lock")
                }
                return id
            }
            return (id, id)
        }
    }

    /// Completes a run record; unfinished runs of others no live session holds, or whose lease has
    /// passed, are closed as `killed` too, and the claims of holders gone deleted, so a run killed
    /// while others finish the night is not left open until the next. The run's lock is let go after.
    public func finishRun(id: Int, summary: WarmSummary, finishedAt: Date, outcome: String) async throws(StoreError) {
        try await transaction { c, logger in
            try await Self.closeGoneRuns(at: finishedAt, except: id, c, logger)
            try await c.run(Self.sweepGoneClaims(except: id), logger)
            try await c.run(
                """
                UPDATE runs SET finished_at = \(finishedAt.wholeSecond), considered = \(summary.considered),
                    fresh = \(summary.fresh), fetched = \(summary.fetched), not_found = \(summary.notFound),
                    failed = \(summary.failed), calls = \(summary.calls), outcome = \(outcome), lease_until = NULL
                WHERE id = \(id)
                """, logger)
        }
        await session.release(id)
    }

    /// Closes as `killed` the unfinished runs (but `except`) that no live session holds or whose
    /// lease has passed, with the calls the ledger counted for them.
    private static func closeGoneRuns(
        at instant: Date, except id: Int?, _ c: PostgresConnection, _ logger: Logger
    ) async throws {
        try await c.run(
            PostgresQuery(
                unsafeSQL: """
                    UPDATE runs SET finished_at = $1, outcome = 'killed', calls = reserved_calls
                    WHERE finished_at IS NULL AND id IS DISTINCT FROM $2
                      AND (lease_until IS NULL OR lease_until < now() OR \(LiveSession.gone("id")))
                    """,
                binds: {
                    var binds = PostgresBindings()
                    binds.append(instant.wholeSecond)
                    binds.append(id)
                    return binds
                }()), logger)
    }

    /// Deletes the claims (a run's IDs, a serve process's flights) whose holder no live session holds
    /// or whose lease has passed, but `except`'s; rows another transaction holds locked are left.
    static func sweepGoneClaims(except holder: Int?) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(holder)
        return PostgresQuery(
            unsafeSQL: """
                DELETE FROM claims WHERE imdb_id IN (
                    SELECT imdb_id FROM claims
                    WHERE run_id IS DISTINCT FROM $1
                      AND (lease_until IS NULL OR lease_until < now() OR \(LiveSession.gone("run_id")))
                    FOR UPDATE SKIP LOCKED)
                """, binds: binds)
    }

    public func runs(key: String?, since: Date) async throws(StoreError) -> [RunRecord] {
        try await withConnection { c, logger in
            try await c.rows(
                """
                SELECT id, started_at, finished_at, key_fingerprint, considered, fresh, fetched, not_found, failed,
                       calls, outcome
                FROM runs WHERE started_at >= \(since.wholeSecond) AND (\(key)::text IS NULL OR key_fingerprint = \(key))
                ORDER BY started_at, id
                """, logger
            ).map { row in
                let (
                    id, started, finished, keyFingerprint, considered, fresh, fetched, notFound, failed, calls, outcome
                ) =
                    try row.decode((Int, Date, Date?, String, Int, Int, Int, Int, Int, Int, String?).self)
                return RunRecord(
                    id: id, startedAt: started, finishedAt: finished, keyFingerprint: keyFingerprint,
                    considered: considered, fresh: fresh, fetched: fetched, notFound: notFound, failed: failed,
                    calls: calls, outcome: outcome)
            }
        }
    }

    public func lastCompletedRunFinish() async throws(StoreError) -> Date? {
        try await withConnection { c, logger in
            try await c.rows(
                "SELECT max(finished_at) FROM runs WHERE outcome = ANY(\(RunRecord.completedOutcomes))", logger
            ).first?.decode(Date?.self)
        }
    }

    // MARK: - WorkClaims

    /// Claims for `runID` (begun by this process, its session alive) those of `ids` no live holder's
    /// lease holds and no run answered since `plannedAt`
    /// (a film fetched, a negative answer or an alias recorded at or after it, to the second), and
    /// renews the run's own lease; the IDs granted, in the order asked, and those answered (of the
    /// IDs no live lease of another run holds). With no `ids`, renews the
    /// leases `runID` holds instead (those with under two thirds of `lease` left): the run does
    /// that every third of its lease, and a claim need not scan the run's leases too.
    ///
    /// Rows another claimer holds locked right now are skipped, not waited for (`SKIP LOCKED`): of
    /// two runs claiming the same IDs at once, each gets those the other did not. New rows go in in
    /// ID order, so two claimers never wait on each other in a circle; should the server still find
    /// a deadlock, the claim is tried again.
    ///
    /// "Answered since the plan" counts from ``answerSlack`` before `plannedAt`: an answer is
    /// stamped when it arrives and committed up to a batch later, so another run may have fetched
    /// an ID just before this run planned and committed it (dropping its claim) just after; its
    /// fetch time then falls before the plan, and without the slack this run would ask again.
    public func claim(_ ids: [String], runID: Int, plannedAt: Date, lease: Duration) async throws(StoreError)
        -> ClaimOutcome
    {
        // Once the session ends, others may hold what the run held: it must take nothing more.
        guard session.holds(runID) else {
            throw StoreError.unavailable(
                database: displayName,
                message: "the session that held the claims of run \(runID) ended; other runs may hold them now")
        }
        let seconds = lease.inSeconds
        let since = plannedAt.wholeSecond.addingTimeInterval(-Self.answerSlack)
        var attempt = 0
        while true {
            do {
                let (granted, answered) = try await withConnection { c, logger in
                    guard !ids.isEmpty else {
                        try await Self.renew(runID: runID, leaseSeconds: seconds, c, logger)
                        return ([String](), [String]())
                    }
                    return try await Self.claim(ids, runID: runID, since: since, leaseSeconds: seconds, c, logger)
                }
                let grantedSet = Set(granted)
                let answeredSet = Set(answered)
                return ClaimOutcome(
                    granted: ids.filter { grantedSet.contains($0) },
                    answered: ids.filter { answeredSet.contains($0) && !grantedSet.contains($0) })
            } catch  where error.isBusy && attempt < 5 {
                attempt += 1
            }
        }
    }

    /// The claim, then the check of what it granted, each a statement of its own.
    ///
    /// The claim: IDs some run has answered since the plan are left out (`done`) and returned as
    /// answered; of the rest, new rows go in first, in ID order (`added`), granted at once; the rows
    /// already there that are free are taken (`taken`); the run's row is renewed. Leaving the
    /// answered out matters when several warms share a plan: each comes back at the end to every ID
    /// another one held when it asked, most of them answered by then, their claims deleted with the
    /// answer; the claim would otherwise insert them all again and the check delete them again
    /// (four warms sharing 20,000 IDs: 60,000 rows each way).
    ///
    /// The check runs on a snapshot taken after the claim: a row another run was deleting as it
    /// committed the ID's answer makes the claim's insert wait for that commit and then go in, on
    /// the claim's older snapshot, which does not show the answer. The check's does, and the claims
    /// of IDs answered since the plan are let go again.
    private static func claim(
        _ ids: [String], runID: Int, since: Date, leaseSeconds: Double, _ c: PostgresConnection, _ logger: Logger
    ) async throws -> (granted: [String], answered: [String]) {
        var binds = PostgresBindings()
        binds.append(ids)
        binds.append(since)
        binds.append(runID)
        binds.append(leaseSeconds)
        let outcome = try await c.rows(
            PostgresQuery(
                unsafeSQL: """
                    WITH asked AS (SELECT DISTINCT id FROM unnest($1::text[]) AS asked(id)),
                    done AS (\(answeredSince(from: "asked"))),
                    todo AS (SELECT id FROM asked WHERE id NOT IN (SELECT id FROM done)),
                    added AS (
                        INSERT INTO claims (imdb_id, run_id, lease_until)
                        SELECT id, $3, now() + $4 * interval '1 second' FROM todo ORDER BY id
                        ON CONFLICT DO NOTHING
                        RETURNING imdb_id),
                    free AS (
                        SELECT c.imdb_id FROM claims AS c
                        WHERE c.imdb_id IN (SELECT id FROM todo)
                          AND (c.lease_until IS NULL OR c.lease_until < now() OR c.run_id = $3
                               OR \(LiveSession.gone("c.run_id")))
                        ORDER BY c.imdb_id
                        FOR UPDATE OF c SKIP LOCKED),
                    taken AS (
                        UPDATE claims SET run_id = $3, lease_until = now() + $4 * interval '1 second'
                        FROM free WHERE claims.imdb_id = free.imdb_id
                        RETURNING claims.imdb_id),
                    run AS (
                        UPDATE runs SET lease_until = now() + $4 * interval '1 second'
                        WHERE id = $3 AND finished_at IS NULL)
                    SELECT imdb_id, false FROM added
                    UNION ALL SELECT imdb_id, false FROM taken
                    UNION ALL SELECT id, true FROM done
                    """, binds: binds), logger
        ).map { try $0.decode((String, Bool).self) }
        let granted = outcome.filter { !$0.1 }.map(\.0)
        let done = outcome.filter(\.1).map(\.0)
        guard !granted.isEmpty else { return ([], done) }
        var checked = PostgresBindings()
        checked.append(granted)
        checked.append(since)
        checked.append(runID)
        let answered = try await c.rows(
            PostgresQuery(
                unsafeSQL: """
                    WITH answered AS (\(answeredSince(from: "unnest($1::text[]) AS asked(id)"))),
                    released AS (
                        DELETE FROM claims AS c USING answered WHERE c.imdb_id = answered.id AND c.run_id = $3)
                    SELECT id FROM answered
                    """, binds: checked), logger
        ).map { try $0.decode(String.self) }
        let late = Set(answered)
        return (granted.filter { !late.contains($0) }, done + answered)
    }

    /// The IDs of `source`, a relation named `asked` with a column `id`, that some run has answered
    /// since `$2`: fetched, answered not found or failed, found an alias, or (a title by its
    /// `TitleKey.claimKey`) resolved. Each ID is looked up by its key, one probe per table: as
    /// `EXISTS` the server would rather hash every answer since the plan, the whole night's films so
    /// far, for every claim.
    private static func answeredSince(from source: String) -> String {
        """
        SELECT id FROM \(source)
        WHERE (SELECT f.fetched_at FROM films AS f WHERE f.imdb_id = asked.id) >= $2
           OR (SELECT l.last_attempt_at FROM lookups AS l WHERE l.imdb_id = asked.id) >= $2
           OR (SELECT a.recorded_at FROM aliases AS a WHERE a.asked_id = asked.id) >= $2
           OR asked.id LIKE 't:%' AND (
               SELECT t.resolved_at FROM titles AS t
               WHERE t.year::text = split_part(asked.id, ':', 2)
                 AND t.type = split_part(asked.id, ':', 3) AND t.title_key = split_part(asked.id, ':', 4)
           ) >= $2
        """
    }

    /// Renews the run's row, and its leases that have less than two thirds of `lease` left (or more
    /// than `lease`), to `lease` from now. Renewing only those keeps the renewal short, and every
    /// lease still at least two thirds of `lease` ahead: a live run renews every third of it. A
    /// lease locked by the run's own writer (which drops the claims of the IDs it commits) is
    /// skipped, not waited for: the two never wait on each other in a circle.
    private static func renew(runID: Int, leaseSeconds: Double, _ c: PostgresConnection, _ logger: Logger) async throws
    {
        try await c.run(
            """
            WITH renewed AS (
                UPDATE claims SET lease_until = now() + \(leaseSeconds) * interval '1 second'
                WHERE imdb_id IN (
                    SELECT imdb_id FROM claims
                    WHERE run_id = \(runID)
                      AND (lease_until < now() + \(leaseSeconds * 2 / 3) * interval '1 second'
                           OR lease_until > now() + \(leaseSeconds) * interval '1 second')
                    FOR UPDATE SKIP LOCKED))
            UPDATE runs SET lease_until = now() + \(leaseSeconds) * interval '1 second'
            WHERE id = \(runID) AND finished_at IS NULL
            """, logger)
    }

    /// How long before a run's plan an answer still counts as answered since the plan: far more
    /// than an answer waits for its batch to commit, and far less than any freshness.
    static let answerSlack: TimeInterval = 60

    /// Returns when this process's session no longer holds `runID`'s lock (see ``LiveSession``).
    public func waitUntilClaimsLost(runID: Int) async {
        await session.waitUntilLost(runID)
    }

    /// Ends every lease `runID` holds: its unfetched IDs go to the next claimer.
    public func releaseClaims(runID: Int) async throws(StoreError) {
        try await withConnection { c, logger in
            try await c.run("DELETE FROM claims WHERE run_id = \(runID)", logger)
        }
    }

    // MARK: - Serve's flights

    /// Takes `key` for `holder` in one statement: a new row, or the row of a holder gone (no live
    /// session holds its lock) or whose lease passed (or `holder`'s own), renewed; a live lease of
    /// another holder is left as it is, and nothing is returned. The row's lock makes two takers at
    /// once one after the other: the second finds the first's live lease.
    ///
    /// The first flight of `holder` on a session takes its lock there, and deletes the flights and
    /// claims of holders gone since (a serve process killed leaves its rows behind).
    public func claimFlight(_ key: String, holder: Int, lease: Duration) async throws(StoreError) -> Bool {
        if !session.holds(holder) {
            guard try await session.hold(holder) else {
                throw StoreError.failed(
                    database: displayName, message: "another live process holds flights as \(holder)",
                    code: "flight holder")
            }
            try await withConnection { c, logger in try await c.run(Self.sweepGoneClaims(except: holder), logger) }
        }
        let seconds = lease.inSeconds
        return try await withConnection { c, logger in
            try await !c.rows(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO claims (imdb_id, run_id, lease_until)
                        VALUES ($1, $2, now() + $3 * interval '1 second')
                        ON CONFLICT (imdb_id) DO UPDATE SET run_id = excluded.run_id, lease_until = excluded.lease_until
                        WHERE claims.lease_until IS NULL OR claims.lease_until < now()
                           OR claims.run_id = excluded.run_id OR \(LiveSession.gone("claims.run_id"))
                        RETURNING imdb_id
                        """,
                    binds: {
                        var binds = PostgresBindings()
                        binds.append(key)
                        binds.append(holder)
                        binds.append(seconds)
                        return binds
                    }()), logger
            ).isEmpty
        }
    }

    public func releaseFlight(_ key: String, holder: Int) async throws(StoreError) {
        try await withConnection { c, logger in
            try await c.run("DELETE FROM claims WHERE imdb_id = \(key) AND run_id = \(holder)", logger)
        }
    }
}
