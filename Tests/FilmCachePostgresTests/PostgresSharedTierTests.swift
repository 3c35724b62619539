import FilmCachePostgres
import Foundation
import PostgresScratch
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// What only the shared tier promises: many processes on many hosts opening, reserving and claiming
/// at once; and opens that fail saying why, never with the password.
@Suite(.timeLimit(.minutes(3))) struct PostgresSharedTierTests {
    @Test func eightProcessesOpeningANewDatabaseAtOnceMigrateItOnce() async throws {
        let database = try Scratch.database()
        let versions = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await database.withBackend { try await $0.schemaVersion() } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(versions == Array(repeating: Schema.currentVersion, count: 8))
        // Each migration applied once: the one that creates version 7, then each later one.
        let applied = try database.sql("SELECT string_agg(version::text, ' ' ORDER BY version) FROM schema_migrations")
        #expect(applied == (7...Schema.currentVersion).map(String.init).joined(separator: " "))
    }

    @Test func eightReserversAtOnceNeverGrantMoreThanTheUsableBudget() async throws {
        let database = try Scratch.database()
        let today = day("2026-11-21")
        let granted = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await database.withBackend { db in
                        var taken = 0
                        while true {
                            let block = try await db.reserveCalls(
                                7, key: "ab12", day: today, dailyLimit: 500, usable: 475)
                            guard block > 0 else { return taken }
                            taken += block
                        }
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(granted == 475)
        let used = try await database.withBackend { try await $0.ledger(key: "ab12", day: today)?.used }
        #expect(used == 475)
    }

    @Test func aLimitOneHostRecordsIsToldToEveryWatcherOfItsKeyAtOnce() async throws {
        let database = try Scratch.database()
        try await database.withBackend { db in
            try await db.markExhausted(key: "ab12", day: "2026-11-20", dailyLimit: 1000, at: utc(2026, 11, 20, 23))
            let (days, told) = AsyncStream.makeStream(of: String.self)
            let watch = Task { await db.watchExhaustion(key: "ab12") { told.yield($0) } }
            var heard = days.makeAsyncIterator()
            // A limit recorded before the watch began is told once it listens.
            #expect(await heard.next() == "2026-11-20")
            try await database.withBackend { other in
                try await other.markExhausted(key: "cd34", day: "2026-11-19", dailyLimit: 1000, at: utc(2026, 11, 19))
                try await other.markExhausted(key: "ab12", day: "2026-11-21", dailyLimit: 1000, at: utc(2026, 11, 21))
            }
            // Another key's limit is not told; this key's is, as its transaction commits.
            #expect(await heard.next() == "2026-11-21")
            watch.cancel()
            await watch.value
        }
    }

    @Test func twoRunsClaimingTheSameIDsAtOnceSplitThemWithoutOverlap() async throws {
        let database = try Scratch.database()
        let ids = (0..<1000).map { String(format: "tt%07d", $0) }
        let plannedAt = Date()
        let (a, b) = try await database.withBackend { db in
            // Last night's run claimed them all; its leases have passed.
            let lastNight = try await db.beginRun(startedAt: plannedAt - 86_400, key: "ab12")
            _ = try await db.claim(ids, runID: lastNight, plannedAt: plannedAt - 86_400, lease: .milliseconds(1))
                .granted
            try await Task.sleep(for: .milliseconds(20))
            let first = try await db.beginRun(startedAt: plannedAt, key: "ab12")
            let second = try await db.beginRun(startedAt: plannedAt, key: "ab12")
            #expect(first != second)
            async let claimedByFirst = Self.claimInBlocks(db, ids, run: first, plannedAt: plannedAt)
            // The same blocks in the same order at the same time: the most the two can collide.
            async let claimedBySecond = Self.claimInBlocks(db, ids, run: second, plannedAt: plannedAt)
            return try await (claimedByFirst, claimedBySecond)
        }
        #expect(Set(a).intersection(b).count == 0, "granted to both")
        #expect(Set(ids).subtracting(a).subtracting(b).count == 0, "granted to neither")
        #expect(a.count + b.count == ids.count)
    }

    /// A batch of `serve`'s answers costs one statement however many it holds (counted by a
    /// statement trigger), and of two answers to one query the later stays.
    @Test func aBatchOfAnswersIsStoredInOneStatement() async throws {
        let database = try Scratch.database()
        try await database.withBackend { db in
            try database.sql(
                """
                CREATE TABLE statements (n integer NOT NULL);
                INSERT INTO statements VALUES (0);
                CREATE FUNCTION count_statement() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
                    AS $$ BEGIN UPDATE statements SET n = n + 1; RETURN NULL; END $$;
                CREATE TRIGGER answers_statements AFTER INSERT ON answers
                    FOR EACH STATEMENT EXECUTE FUNCTION count_statement();
                """)
            let at = utc(2026, 11, 21, 12)
            var answers = (0..<50).map {
                CachedAnswer(query: "t=film \($0)", body: Array("{\"n\":\($0)}".utf8), found: true, answeredAt: at)
            }
            answers.append(CachedAnswer(query: "t=film 7", body: Array("later".utf8), found: false, answeredAt: at))
            try await db.storeAnswers(answers)
            #expect(try database.sql("SELECT n FROM statements").trimmingCharacters(in: .whitespacesAndNewlines) == "1")
            #expect(try await db.answer(for: "t=film 7")?.body == Array("later".utf8))
            #expect(try await db.answer(for: "t=film 49")?.body == Array("{\"n\":49}".utf8))
        }
    }

    /// What `run` is granted of `ids`, claimed 50 at a time as a warm would.
    static func claimInBlocks(_ db: PostgresBackend, _ ids: [String], run: Int, plannedAt: Date) async throws
        -> [String]
    {
        var granted: [String] = []
        for start in stride(from: 0, to: ids.count, by: 50) {
            let block = Array(ids[start..<min(start + 50, ids.count)])
            granted += try await db.claim(block, runID: run, plannedAt: plannedAt, lease: .seconds(60)).granted
        }
        return granted
    }

    @Test func aLiveLeaseHoldsAndAnExpiredOneGoesToTheNextClaimer() async throws {
        let database = try Scratch.database()
        try await database.withBackend { db in
            let plannedAt = Date()
            let first = try await db.beginRun(startedAt: plannedAt, key: "ab12")
            let second = try await db.beginRun(startedAt: plannedAt, key: "ab12")
            #expect(
                try await db.claim(["tt1", "tt2"], runID: first, plannedAt: plannedAt, lease: .seconds(60)).granted == [
                    "tt1", "tt2",
                ])
            #expect(
                try await db.claim(["tt1", "tt2", "tt3"], runID: second, plannedAt: plannedAt, lease: .seconds(60))
                    .granted == [
                        "tt3"
                    ])
            #expect(
                try await db.claim(["tt4"], runID: first, plannedAt: plannedAt, lease: .milliseconds(1)).granted == [
                    "tt4"
                ])
            // A claim renews no other lease: tt1 and tt2 still have a minute.
            try await Task.sleep(for: .milliseconds(50))
            #expect(
                try await db.claim(["tt1", "tt4"], runID: second, plannedAt: plannedAt, lease: .seconds(60)).granted
                    == ["tt4"])
            // A renewal (claiming nothing) sets first's leases to a millisecond too: all passed.
            #expect(try await db.claim([], runID: first, plannedAt: plannedAt, lease: .milliseconds(1)).granted == [])
            try await Task.sleep(for: .milliseconds(50))
            #expect(
                try await db.claim(["tt1", "tt4"], runID: second, plannedAt: plannedAt, lease: .seconds(60)).granted
                    == [
                        "tt1", "tt4",
                    ])
            try await db.releaseClaims(runID: second)
            #expect(
                try await db.claim(["tt3"], runID: first, plannedAt: plannedAt, lease: .seconds(60)).granted == ["tt3"])
        }
    }

    @Test func aFlightIsHeldByOneServeProcessUntilItLetsGoOrItsLeasePasses() async throws {
        let database = try Scratch.database()
        try await database.withBackend { db in
            let key = "serve:i:tt0000001"
            #expect(try await db.claimFlight(key, holder: -1, lease: .seconds(60)))
            #expect(try await db.claimFlight(key, holder: -2, lease: .seconds(60)) == false)
            #expect(try await db.claimFlight(key, holder: -1, lease: .seconds(60)), "its own again")
            try await db.releaseFlight(key, holder: -2)
            #expect(try await db.claimFlight(key, holder: -2, lease: .seconds(60)) == false, "not let go by another")
            try await db.releaseFlight(key, holder: -1)
            #expect(try await db.claimFlight(key, holder: -2, lease: .milliseconds(1)))
            try await Task.sleep(for: .milliseconds(50))
            #expect(try await db.claimFlight(key, holder: -1, lease: .seconds(60)), "the lease passed")
            // A warm's claim of the film itself is another key.
            let run = try await db.beginRun(startedAt: Date(), key: "ab12")
            #expect(
                try await db.claim(["tt0000001"], runID: run, plannedAt: Date(), lease: .seconds(60)).granted.count == 1
            )
            // Eight takers at once, eight processes alive till all have tried (none the holder this one
            // is): one holds it.
            var takers: [PostgresBackend] = []
            for _ in 0..<8 {
                takers.append(
                    try await PostgresBackend.open(
                        database.location, password: database.server.password, time: .system, logger: SampleFilms.logger
                    ))
            }
            let taken = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, taker) in takers.enumerated() {
                    group.addTask {
                        try await taker.claimFlight("serve:q:s=x", holder: -11 - index, lease: .seconds(60))
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            for taker in takers { await taker.close() }
            #expect(taken == 1)
        }
    }

    /// Another run commits an ID's answer (dropping its claim) while this run claims the ID: the
    /// claim's insert waits for that commit and goes in, and the answer it could not see on its own
    /// snapshot is found by the check after it. (Four warms sharing a plan asked 1,280 IDs twice
    /// before the check.)
    @Test func aClaimMadeWhileAnotherRunCommitsTheIDsAnswerFindsItAnswered() async throws {
        let database = try Scratch.database()
        try await database.withBackend { db in
            let plannedAt = Date()
            let first = try await db.beginRun(startedAt: plannedAt, key: "ab12")
            let second = try await db.beginRun(startedAt: plannedAt, key: "ab12")
            #expect(
                try await db.claim(["tt0000001"], runID: first, plannedAt: plannedAt, lease: .seconds(60)).granted
                    == ["tt0000001"])
            // The first run's commit, held open two seconds: the answer (an alias) and its claim dropped.
            let committing = Task.detached {
                try database.sql(
                    """
                    BEGIN;
                    INSERT INTO aliases (asked_id, imdb_id, recorded_at) VALUES ('tt0000001', 'tt0000002', now());
                    DELETE FROM claims WHERE imdb_id = 'tt0000001';
                    SELECT pg_sleep(2);
                    COMMIT;
                    """)
            }
            // The commit holds the claim's row once its DELETE ran: once it sleeps (the whole string
            // shows as the active query from its first statement on).
            _ = try await eventually(within: .seconds(20), every: .milliseconds(20)) {
                try database.sql(
                    "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(2)%' AND wait_event = 'PgSleep'"
                        + " AND pid <> pg_backend_pid()") != "0"
            }
            let outcome = try await db.claim(["tt0000001"], runID: second, plannedAt: plannedAt, lease: .seconds(60))
            _ = try await committing.value
            #expect(outcome.granted == [])
            #expect(outcome.answered == ["tt0000001"])
            #expect(try database.sql("SELECT count(*) FROM claims") == "0")
        }
    }

    @Test func anIDAnsweredSincePlanningIsGrantedToNobody() async throws {
        let database = try Scratch.database()
        try await database.withBackend { db in
            let plannedAt = Date()
            let run = try await db.beginRun(startedAt: plannedAt, key: "ab12")
            try await db.write(
                WriteBatch(
                    films: [
                        SampleFilms.film("tt0000001", fetchedAt: plannedAt + 1),
                        SampleFilms.film("tt0000002", fetchedAt: plannedAt - 3600),
                    ],
                    lookups: [
                        LookupRecord(
                            imdbID: "tt0000003", status: .notFound, message: nil, httpStatus: 200,
                            attemptedAt: plannedAt, nextAttemptAt: plannedAt + 86_400)
                    ],
                    aliases: [FilmAlias(askedID: "tt0000004", imdbID: "tt0000001", recordedAt: plannedAt + 2)]))
            let ids = ["tt0000001", "tt0000002", "tt0000003", "tt0000004", "tt0000005"]
            let outcome = try await db.claim(ids, runID: run, plannedAt: plannedAt, lease: .seconds(60))
            #expect(outcome.granted == ["tt0000002", "tt0000005"])
            #expect(outcome.answered == ["tt0000001", "tt0000003", "tt0000004"], "answered since the plan, in order")
        }
    }

    @Test func aClaimEndsWithTheBatchThatAnswersItsIDOrTitle() async throws {
        let database = try Scratch.database()
        try await database.withBackend { db in
            let plannedAt = Date()
            let first = try await db.beginRun(startedAt: plannedAt, key: "ab12")
            let second = try await db.beginRun(startedAt: plannedAt, key: "ab12")
            let heat = try #require(TitleQuery(title: "Heat", year: 1995, type: "movie"))
            #expect(heat.key.claimKey == "t:1995:movie:heat")
            let ids = ["tt0000001", "tt0000002", "tt0000003", "tt0000004", heat.key.claimKey]
            #expect(try await db.claim(ids, runID: first, plannedAt: plannedAt, lease: .seconds(60)).granted == ids)
            try await db.write(
                WriteBatch(
                    films: [SampleFilms.film("tt0000001", fetchedAt: plannedAt + 1)],
                    lookups: [
                        LookupRecord(
                            imdbID: "tt0000002", status: .failed, message: "HTTP 503", httpStatus: 503,
                            attemptedAt: plannedAt + 1, nextAttemptAt: plannedAt + 3600)
                    ],
                    aliases: [FilmAlias(askedID: "tt0000003", imdbID: "tt0000001", recordedAt: plannedAt + 1)],
                    titles: [TitleAnswer(query: heat, imdbID: "tt0000001", answeredAt: plannedAt + 1)]))
            // Only the ID still in flight keeps its claim, so the run's renewals stay short.
            #expect(try database.sql("SELECT string_agg(imdb_id, ' ') FROM claims") == "tt0000004")
            let outcome = try await db.claim(ids, runID: second, plannedAt: plannedAt, lease: .seconds(60))
            #expect(outcome.granted.isEmpty, "tt0000004 is still held")
            #expect(outcome.answered == ["tt0000001", "tt0000002", "tt0000003", heat.key.claimKey])
        }
    }

    @Test func anAnswerFetchedJustBeforeAnotherRunPlannedAndCommittedAfterIsNotAskedAgain() async throws {
        let database = try Scratch.database()
        try await database.withBackend { db in
            let firstPlan = Date().addingTimeInterval(-10)
            let first = try await db.beginRun(startedAt: firstPlan, key: "ab12")
            #expect(
                try await db.claim(["tt0000001"], runID: first, plannedAt: firstPlan, lease: .seconds(60)).granted.count
                    == 1)
            // The answer arrives; the second run plans (the film not yet committed, so due); then
            // the first run's batch commits it and drops its claim.
            let arrived = Date().addingTimeInterval(-2)
            let secondPlan = Date()
            let second = try await db.beginRun(startedAt: secondPlan, key: "ab12")
            try await db.write(WriteBatch(films: [SampleFilms.film("tt0000001", fetchedAt: arrived)]))
            let outcome = try await db.claim(["tt0000001"], runID: second, plannedAt: secondPlan, lease: .seconds(60))
            #expect(outcome.granted.isEmpty && outcome.answered == ["tt0000001"], "\(outcome)")
        }
    }

    @Test func aWritableOpenHasFilmsLongValuesCompressedWithLZ4() async throws {
        let database = try Scratch.database()
        let compression = """
            SELECT string_agg(DISTINCT attcompression::text, ' ') FROM pg_attribute
            WHERE attrelid = 'films'::regclass AND attname IN ('raw_json', 'plot', 'actors')
            """
        try await database.withBackend { _ in }
        #expect(try database.sql(compression) == "l")
        // As a database made before this setting: the next writable open sets it, a read-only one never.
        _ = try database.sql("ALTER TABLE films ALTER COLUMN raw_json SET COMPRESSION pglz")
        try await database.withBackend(readOnly: true) { _ in }
        #expect(try database.sql(compression) == "l p")
        try await database.withBackend { _ in }
        #expect(try database.sql(compression) == "l")
    }

    @Test func aLiveRunOfAnotherHostIsNotClosedAsKilled() async throws {
        let database = try Scratch.database()
        try await database.withBackend { db in
            let live = try await db.beginRun(startedAt: Date(), key: "ab12")
            _ = try await db.beginRun(startedAt: Date(), key: "cd34")
            #expect(try await db.runs(key: "ab12", since: .distantPast).first?.outcome == nil)
            try database.expireRunLeases()
            _ = try await db.beginRun(startedAt: Date(), key: "ef56")
            let runs = try await db.runs(key: nil, since: .distantPast)
            #expect(runs.first { $0.id == live }?.outcome == "killed")
            #expect(runs.filter { $0.outcome == "killed" }.count == 2)
        }
    }

    @Test func aReadOnlyOpenOfAnEmptyDatabaseFailsAndCreatesNothing() async throws {
        let database = try Scratch.database()
        await #expect {
            try await database.withBackend(readOnly: true) { _ in }
        } throws: { error in
            guard case .open(let name, let message)? = error as? StoreError else { return false }
            return name == database.location.displayName && message.contains("run a warm")
        }
        #expect(try database.sql("SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace") == "0")
        // Once a warm made it, a read-only open reads it.
        try await database.withBackend { try await $0.write(WriteBatch(films: [SampleFilms.film("tt0000001")])) }
        let count = try await database.withBackend(readOnly: true) { try await $0.filmCount() }
        #expect(count == 1)
    }

    @Test func theReadOnlyRoleOfSchemaMDReadsAndPlansButCannotWrite() async throws {
        let database = try Scratch.database()
        let fresh = SampleFilms.film("tt0000001", fetchedAt: Date())
        try await database.withBackend { try await $0.write(WriteBatch(films: [fresh])) }
        let reader = "reader_\(database.name)"
        try database.sql(
            """
            CREATE ROLE \(reader) LOGIN PASSWORD '\(database.server.password)';
            GRANT CONNECT ON DATABASE \(database.name) TO \(reader);
            GRANT USAGE ON SCHEMA public TO \(reader);
            GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(reader);
            ALTER DEFAULT PRIVILEGES FOR ROLE \(database.server.role) IN SCHEMA public GRANT SELECT ON TABLES TO \(reader);
            SELECT pg_advisory_xact_lock(x'66696c6d'::int, hashtext('k')), pg_advisory_xact_lock(x'66696c6d63616368'::bigint);
            """)
        var location = database.location
        location.user = reader
        try await PostgresBackend.withBackend(
            location, password: database.server.password, time: .system, logger: SampleFilms.logger, readOnly: true
        ) { db in
            #expect(try await db.filmCount() == 1)
            #expect(try await db.film("tt0000001")?.title == "Gladiator")
            let plan = try await db.plan(
                Worklist(ids: ["tt0000001", "tt0000002"]), planner: Planner(), now: Date(), budget: nil)
            #expect(plan.toFetch == ["tt0000002"])
            await #expect {
                try await db.write(WriteBatch(films: [SampleFilms.film("tt0000003")]))
            } throws: { error in
                guard case .failed(_, _, let code, _)? = error as? StoreError else { return false }
                return code == "SQLSTATE 42501"
            }
        }
    }

    @Test func aDatabaseFromANewerFilmcacheIsRefused() async throws {
        let database = try Scratch.database()
        try await database.withBackend { _ in }
        try database.sql("INSERT INTO schema_migrations (version) VALUES (\(Schema.currentVersion + 1))")
        for readOnly in [false, true] {
            await #expect(
                throws: StoreError.newerSchema(
                    database: database.location.displayName, found: Schema.currentVersion + 1,
                    supported: Schema.currentVersion)
            ) {
                try await database.withBackend(readOnly: readOnly) { _ in }
            }
        }
    }

    @Test func aWrongPasswordCannotOpenAndIsNeverShown() async throws {
        let database = try Scratch.database()
        let wrong = "Wr0ng-" + database.server.password
        for password in [wrong, nil] as [String?] {
            do {
                try await PostgresBackend.withBackend(
                    database.location, password: password, time: .system, logger: SampleFilms.logger
                ) {
                    _ in
                }
                Issue.record("opened with a wrong password")
            } catch let error as StoreError {
                guard case .open(let name, _) = error else {
                    Issue.record("not an open error: \(error)")
                    continue
                }
                #expect(name == database.location.displayName)
                for text in ["\(error)", String(reflecting: error), error.localizedDescription] {
                    #expect(!text.contains(database.server.password) && !text.contains("Wr0ng"), "\(text)")
                }
            }
        }
        await #expect(throws: StoreError.self) {
            var location = database.location
            location.database = "no_such_database"
            try await PostgresBackend.withBackend(
                location, password: database.server.password, time: .system, logger: SampleFilms.logger
            ) { _ in }
        }
    }

    @Test func aServerThatStopsIsUnavailableNotABadStatement() async throws {
        let server = try ScratchPostgres()
        defer { server.remove() }
        let name = try server.createDatabase()
        let database = ScratchDatabase(server: server, name: name)
        try await database.withBackend { db in
            try await db.write(WriteBatch(films: [SampleFilms.film("tt0000001")]))
            try server.stop()
            await #expect {
                _ = try await db.filmCount()
            } throws: { error in
                guard case .unavailable(let name, _)? = error as? StoreError else { return false }
                return name == database.location.displayName
            }
            try server.start()
            #expect(try await db.filmCount() == 1, "the pool connects again once the server is back")
        }
        try server.stop()
        await #expect {
            try await database.withBackend { _ in }
        } throws: { error in
            guard case .unavailable(_, let message)? = error as? StoreError else { return false }
            return message.contains("refused")
        }
    }

    @Test func aServerRestartMidRunLosesNothingCommitted() async throws {
        let server = try ScratchPostgres()
        defer { server.remove() }
        let database = ScratchDatabase(server: server, name: try server.createDatabase())
        try await database.withBackend { db in
            try await db.write(WriteBatch(films: [SampleFilms.film("tt0000001")]))
            try server.restart()
            var count: Int?
            for _ in 0..<3 where count == nil {
                count = try? await db.filmCount()  // the first statement may find its connection gone
            }
            #expect(count == 1)
        }
    }
}
