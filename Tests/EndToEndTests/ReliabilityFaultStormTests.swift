import Foundation
import Testing

extension Reliability {
    /// A warm through a storm of faults into a limit that runs out mid-run, then the next quota day.
    ///
    /// Both days are pinned with `FILMCACHE_NOW`, so "the next day" is a real new quota day in the
    /// ledger without waiting for midnight. The storm runs on SQLite here and on PostgreSQL in
    /// `PostgresReliabilityEndToEndTests`: one cache, whichever backend holds it, keeps the same promises.
    @Suite struct FaultStormTests {
        /// The cache the storm hits.
        let cache: CacheDatabase
        /// The sample watchlist: 292 distinct IDs, 12 of them unknown to the corpus.
        let watchlist = BuiltBinaries.packageRoot + "/Data/watchlist.txt"
        /// A key the stand-in accepts.
        let key = "test-key-e2e"
        /// The instant of the storm.
        let firstDay = "2031-03-10T12:00:00Z"
        /// The same time a day later: the next quota day.
        let nextDay = "2031-03-11T12:00:00Z"
        /// Requests the stand-in answers before its limit runs out.
        let limitAfter = 180
        /// Transfers in flight at once: the most limit answers one wave can draw.
        let inFlight = 4

        /// A fresh SQLite file.
        init() throws {
            self.init(try CacheDatabase(.sqlite, in: ReliabilityScratch("storm")))
        }

        /// A storm on `cache`.
        init(_ cache: CacheDatabase) {
            self.cache = cache
        }

        /// `warm` with quick retries and a breaker that tolerates the storm, pinned to `day`.
        func warm(_ standIn: StandInProcess, on day: String) throws -> BuiltBinaries.Output {
            try BuiltBinaries.run(
                "filmcache",
                [
                    "warm", "--db", cache.argument, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight",
                    "\(inFlight)",
                    "--daily-limit", "100000", "--reserve", "0", "--max-attempts", "3", "--retry-base", "0.01",
                    "--retry-cap", "0.05", "--breaker-pause-after", "50", "--breaker-stop-after", "200",
                    "--breaker-cool-down", "0.1", "--log-level", "info", watchlist,
                ], environment: cache.environment(["OMDB_API_KEY": key, "FILMCACHE_NOW": day]))
        }

        /// The plan on `day` with the warm's budget, as `filmcache plan --json --ids` prints it; of an
        /// empty cache (a SQLite file not made yet) when `empty`, since `plan` refuses a PostgreSQL
        /// database no warm has given the schema yet.
        func plan(on day: String, empty: Bool = false) throws -> [String: Any] {
            let flags = ["--daily-limit", "100000", "--reserve", "0"]
            let environment = ["OMDB_API_KEY": key, "FILMCACHE_NOW": day]
            guard !empty else {
                return try cache.scratch.plan(
                    [watchlist], flags, database: cache.scratch.dir + "/empty.sqlite", environment: environment)
            }
            return try cache.plan([watchlist], flags, environment: environment)
        }

        /// The plan's due IDs: to fetch now and deferred to later days.
        func due(_ plan: [String: Any]) -> Set<String> {
            Set((plan["toFetchIDs"] as? [String] ?? []) + (plan["deferredIDs"] as? [String] ?? []))
        }

        /// The storm into the limit on day one, the same day again, then the next day without faults.
        @Test func aFaultStormIntoALimitLosesNoIDAndTheNextQuotaDayFinishesTheRest() async throws {
            try await offThePool { try storm() }
        }

        /// The storm and the two days after it, each checked against the stand-in's counters.
        func storm() throws {
            let standIn = try StandInProcess(arguments: [
                "--fault-rate", "0.3", "--seed", "23", "--faults", "all", "--latency-ms", "3",
                "--limit-after", "\(limitAfter)",
            ])
            let ids = due(try plan(on: firstDay, empty: true))
            #expect(ids.count == 292, "the sample watchlist names 292 distinct IDs")

            // Day one: faults of every kind, then OMDb's limit part way through.
            let first = try warm(standIn, on: firstDay)
            #expect(first.status == 75, "the limit ends the run early: \(first.stderr.suffix(2_000))")
            #expect(first.stdout.contains("stopped early"), "\(first.stdout)")
            let served = try standIn.requestCount()
            let limitAnswers = try standIn.limitAnswers()
            #expect(
                try cache.query("SELECT sum(used) FROM quota_ledger") == "\(served)", "every call counted once")
            #expect(
                limitAnswers >= 1 && limitAnswers <= inFlight,
                "only the wave already in flight meets the limit; nothing is sent after it (\(limitAnswers) answers)"
            )
            #expect(served == limitAfter + limitAnswers)
            #expect(try cache.query("SELECT count(*) FROM quota_ledger WHERE exhausted_at IS NOT NULL") == "1")

            // Every ID is stored, recorded as a negative answer, or still due: none is lost.
            let films = Set(try cache.column("SELECT imdb_id FROM films"))
            let notFound = Set(try cache.column("SELECT imdb_id FROM lookups WHERE status = 'not_found'"))
            let failed = Set(
                try cache.column(
                    "SELECT imdb_id FROM lookups WHERE status = 'failed' AND next_attempt_at > '\(firstDay)'"))
            #expect(try cache.query("SELECT count(*) FROM lookups") == "\(notFound.count + failed.count)")
            #expect(films.isDisjoint(with: notFound) && films.isDisjoint(with: failed))
            let afterFirst = try plan(on: firstDay)
            let stillDue = due(afterFirst)
            #expect(stillDue == ids.subtracting(films).subtracting(notFound).subtracting(failed), "due is the rest")
            #expect(films.union(notFound).union(failed).union(stillDue) == ids, "no ID lost")
            #expect(!stillDue.isEmpty, "the limit left work for the next day")
            #expect(afterFirst["exhausted"] as? Bool == true && afterFirst["toFetch"] as? Int == 0)
            #expect(
                first.stdout.range(of: #"fetched\s+\#(films.count)\b"#, options: .regularExpression) != nil,
                "the summary counts what is stored: \(first.stdout)")

            // The same day again: the day is spent, not one more call.
            let again = try warm(standIn, on: firstDay)
            #expect(again.status == 75, "\(again.stderr.suffix(1_000))")
            #expect(try standIn.requestCount() == served, "no call after the limit answer")

            // The next quota day: OMDb's day has turned over and the storm has passed.
            try standIn.setBehaviour("fault-rate=0&limit-after=none&latency-ms=0")
            try standIn.resetCounters()
            let second = try warm(standIn, on: nextDay)
            #expect(second.status == 0, "\(second.stderr.suffix(2_000))")
            let secondServed = try standIn.requestCount()
            #expect(secondServed == stillDue.count + failed.count, "one call per ID due, the failed ones included")
            #expect(
                try cache.query("SELECT used FROM quota_ledger WHERE quota_day = '2031-03-11'")
                    == "\(secondServed)")
            #expect(
                try cache.query(
                    "SELECT \(cache.instant("reset_observed_at")) FROM quota_ledger WHERE quota_day = '2031-03-10'")
                    == nextDay, "the first answer of the new day is the observed reset")
            let stored = Set(try cache.column("SELECT imdb_id FROM films"))
            let missing = Set(try cache.column("SELECT imdb_id FROM lookups WHERE status = 'not_found'"))
            #expect(stored.isSuperset(of: films), "nothing stored on day one was lost")
            #expect(stored.union(missing) == ids && missing.count == 12, "every ID answered: 280 films, 12 unknown")
            #expect(try cache.query("SELECT count(*) FROM lookups WHERE status = 'failed'") == "0")

            let done = try plan(on: nextDay)
            #expect(done["toFetch"] as? Int == 0 && done["deferred"] as? Int == 0, "nothing due")
            #expect(done["notFoundAwaitingRecheck"] as? Int == 12 && done["failedAwaitingRetry"] as? Int == 0)
            #expect(try cache.int("SELECT count(*) FROM runs WHERE finished_at IS NULL") == 0, "no run left open")
        }
    }
}
