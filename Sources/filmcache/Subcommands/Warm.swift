import ArgumentParser
import FilmCacheKit
import FilmCachePostgres
import FilmCachePrometheus
import Foundation
import Logging

extension FilmCacheCommand {
    struct Warm: AsyncParsableCommand, OutputIsACourtesy {
        static let configuration = CommandConfiguration(
            commandName: "warm",
            abstract: "Fetch what the worklists name and the cache lacks or holds stale.",
            usage: "filmcache warm [--job <file>] [--db <db>] [<options>] [<worklist> ...]",
            discussion: """
                Reads imdbIDs (one ID or IMDb title URL a line, # comments), skips films
                fetched within --ttl-days, fetches the rest from OMDb under the daily
                budget, and upserts them. Exit status: 0 done; 75 stopped early (budget,
                limit, a signal or --max-runtime, another warm running, or no ID got an
                answer), the rest resumes next run; 65 bad worklist; 69 OMDb unreachable; 72
                libcurl cannot be loaded; 74 database error, or a metrics file not written
                after a run that would exit 0; 76 the base URL does not answer like OMDb
                (HTML, redirects, bare 403/404); 78 configuration (missing or rejected key,
                bad job file, setting out of range).

                With --job FILE the job file gives worklists, database, key and every
                setting below; flags given override it, and worklist arguments replace its
                list. On a SQLite file one warm works at a time: it holds DB.lock (flock)
                while it runs, and a second one exits 75 at once unless given --wait. On
                PostgreSQL any number of warms, on any hosts, run at once: they share one
                ledger and split the plan, each claiming the IDs it fetches.

                SIGINT, SIGTERM or SIGHUP stops the run cleanly: no new request, requests in
                flight finish and are stored, the summary is printed, exit 75. A second
                signal exits at once with 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP);
                committed results are kept. SIGPIPE is ignored: output to a closed pipe is
                dropped and the run goes on.

                Examples:
                  OMDB_API_KEY=… filmcache warm --db films.sqlite Data/watchlist.txt
                  filmcache warm --api-key-file /etc/filmcache/omdb.key --db films.sqlite \\
                    a.txt b.txt
                  OMDB_API_KEY=demo filmcache warm --base-url http://127.0.0.1:8765/ \\
                    --db t.sqlite list.txt
                  filmcache warm --job /etc/filmcache/nightly.toml --rate 2
                """
        )

        @OptionGroup var common: CommonOptions

        @OptionGroup var jobOptions: JobOptions

        @OptionGroup var worklistFormat: WorklistFormatOption

        @OptionGroup(title: "Freshness and budget") var planning: PlanOptions

        @OptionGroup var refreshing: RefreshOption

        /// Time limit and progress.
        @OptionGroup(title: "Running") var runtime: RuntimeOptions

        @OptionGroup var fetch: FetchOptions

        @OptionGroup(title: "TMDb") var tmdbWarm: TMDbWarmOptions

        @OptionGroup(title: "TMDb") var tmdbOptions: TMDbOptions

        /// Whether to wait for another warm's run lock instead of exiting 75.
        @Flag(help: "When another warm holds the database, wait for it to finish instead of exiting 75.")
        var wait = false

        @Option(help: Setting.metricsFile.argumentHelp)
        var metricsFile: String?

        @Option(
            name: .customLong("posters"),
            help: ArgumentHelp(
                "Afterwards fetch the posters of the films this run fetched into this store (as `filmcache posters`).",
                valueName: "dir"))
        var posterStore: String?

        @OptionGroup(title: "Posters") var posterOptions: PosterOptions

        @Argument(help: "Worklist files (replacing the job file's).")
        var worklists: [String] = []

        func validate() throws {
            guard !worklists.isEmpty || jobOptions.path != nil else {
                throw ValidationError("name at least one worklist file, or a --job file that lists worklists")
            }
        }

        func run() async throws {
            let job = try jobOptions.load()
            let logger = try common.makeLogger(job: job)
            let worklists = try JobOptions.worklists(arguments: worklists, job: job)
            let location = try common.location(job: job)
            let database = location.displayName
            let signals = await StopSignals(logger: logger)
            let started = ContinuousClock.now
            let time = try ReferenceTime.source()
            let now = time.wall.now
            // A PostgreSQL cache's pool runs in the group, beside the run and shut down after it.
            let pool = PostgresPoolService(time: time)
            let sources = tmdbWarm.sources(job: job)
            let tmdb =
                try sources.contains("tmdb")
                ? tmdbWarm.configuration(job: job, jobPath: jobOptions.path, connection: tmdbOptions).limited(
                    to: runtime.maxRuntime?.duration ?? job?.maxRuntime) : nil
            try await CommandGroup.run(beside: [signals, pool], logger: logger) {
                guard sources.contains("omdb") else {
                    guard let tmdb else { return }
                    try await runTMDbOnly(
                        tmdb, worklists: worklists, job: job, location: location, logger: logger, signals: signals,
                        pool: pool, time: time)
                    return
                }
                let startedAt = now()
                let posters = try (posterStore ?? job?.posterStore).map(PosterOptions.openStore)
                let metricsPath = metricsFile ?? job?.metricsFile
                try validateMetricsFile(metricsPath)
                var (configuration, options) = try fetch.configuration(
                    database: database, worklists: worklists, job: job, jobPath: jobOptions.path)
                configuration.worklistFormat = worklistFormat.resolved(job: job)
                planning.apply(to: &configuration.planSettings, job: job)
                refreshing.apply(to: &configuration.planSettings, now: now())
                let key = configuration.apiKey
                if let maxRuntime = runtime.maxRuntime?.duration ?? job?.maxRuntime {
                    configuration.maxRuntime = maxRuntime
                }
                if let claimLease = runtime.claimLease?.duration ?? job?.claimLease {
                    configuration.claimLease = claimLease
                }

                let lock = try Self.lock(location, wait: wait, signals: signals, logger: logger)
                defer { lock?.release() }

                let store = try await common.open(location, job: job, logger: logger, pool: pool)
                let transport = CurlMultiTransport(options: options)
                defer { transport.shutdown() }

                var summary: WarmSummary
                // TMDb's part runs beside OMDb's, at its own pace and on its own connections.
                let tmdbIDs = try tmdb.map { _ in try Self.ids(in: worklists, format: configuration.worklistFormat) }
                async let tmdbPart = Self.runTMDb(
                    tmdb, ids: tmdbIDs ?? [], store: store, options: options, time: time, logger: logger,
                    stop: signals.stop)
                do throws(WarmError) {
                    summary = try await runtime.run(
                        WarmJob(
                            configuration: configuration, store: store, transport: transport,
                            time: time, logger: logger),
                        stop: signals.stop, jobFile: job, logger: logger)
                } catch {
                    // TMDb's part stops too, and is done with the database before it closes.
                    _ = signals.stop.request(.interrupted)
                    _ = try? await tmdbPart
                    await writeMetrics(
                        to: metricsPath, nil, status: Self.exitStatus(for: error), store, configuration, since: started,
                        now: now)
                    await store.close()
                    throw fail(error.description, status: Self.exitStatus(for: error))
                }
                do {
                    summary.tmdb = try await tmdbPart
                } catch {
                    await store.close()
                    let error = error as? StoreError ?? .unavailable(database: database, message: "\(error)")
                    throw fail(error.description, status: ExitStatus.of(error))
                }
                print(SummaryReport.text(summary, keyFingerprint: key.fingerprint, database: database))
                var status = max(Self.exitStatus(for: summary), Self.exitStatus(for: summary.tmdb))
                let metricsWritten = await writeMetrics(
                    to: metricsPath, summary, status: status, store, configuration, since: started, now: now)
                if !metricsWritten && status == 0 { status = ExitStatus.ioError }
                if let posters, Self.fetchesPosters(after: summary.stopReason) {
                    do throws(PosterJobError) {
                        let posterSummary = try await PosterOptions.run(
                            cache: store, store: posters, settings: posterOptions.settings(job: job),
                            fetchedSince: startedAt, prune: false, stop: signals.stop, logger: logger, time: time)
                        if posterSummary.stopped && status == 0 { status = ExitStatus.tryAgainLater }
                    } catch {
                        StandardError.write("filmcache: posters: \(error.description)")
                        if status == 0 { status = PosterOptions.exitStatus(for: error) }
                    }
                }
                await store.close()
                switch summary.stopReason {
                case .notOMDb?:
                    throw fail(
                        "the base URL does not answer like OMDb: \(summary.stopDetail ?? "?"); check --base-url",
                        status: status)
                case .unreachable?:
                    throw fail("OMDb unreachable: \(summary.stopDetail ?? "?")", status: status)
                case nil where summary.nothingSucceeded:
                    throw fail("no ID got an answer (\(summary.failed) failed; see the log)", status: status)
                default:
                    if status != 0 { throw ExitCode(status) }
                }
            }
        }

        /// Takes the run lock of a SQLite cache (one warm at a time on a file; warms on a PostgreSQL
        /// cache share its plan instead): exit 75 when another warm holds it, unless `wait`.
        static func lock(_ location: DatabaseLocation, wait: Bool, signals: StopSignals, logger: Logger) throws
            -> RunLock?
        {
            var lock: RunLock?
            do throws(RunLockError) {
                if case .sqlite(let database) = location {
                    lock = try RunLock.acquire(forDatabase: database, wait: wait) { holder in
                        let who = holder.map { "pid \($0)" } ?? "pid unknown"
                        logger.notice(
                            "another warm holds \(RunLock.path(forDatabase: database)) (\(who)); waiting for it")
                    } giveUp: {
                        signals.stop.isRequested
                    }
                }
            } catch .gaveUp(let path) {
                throw fail(RunLockError.gaveUp(path: path).description, status: ExitStatus.tryAgainLater)
            } catch .held(let path, let pid) {
                let who = pid.map { "pid \($0)" } ?? "pid unknown"
                throw fail(
                    "another warm holds \(path) (\(who)); this run stops here, the next one carries on"
                        + " (pass --wait to wait for it instead)",
                    status: ExitStatus.tryAgainLater)
            } catch {
                throw fail(error.description, status: ExitStatus.ioError)
            }
            return lock
        }

        /// The IMDb IDs the worklists name, in order (TMDb's part reads IDs; titles are OMDb's).
        static func ids(in worklists: [String], format: WorklistFormat) throws -> [String] {
            do {
                return try Worklist.read(paths: worklists, format: format).ids
            } catch {
                throw fail(error.description, status: ExitStatus.dataError)
            }
        }

        /// TMDb's part of a warm, when the run has one, on a transport of its own.
        static func runTMDb(
            _ tmdb: TMDbWarmConfiguration?, ids: [String], store: any CacheBackend,
            options: CurlMultiTransport.Options, time: TimeSource, logger: Logger, stop: WarmStop
        ) async throws(StoreError) -> TMDbWarmSummary? {
            guard let tmdb else { return nil }
            var options = options
            options.maxInFlight = tmdb.maxInFlight
            // A film's details with its credits and images run to hundreds of kilobytes.
            options.maxBodyBytes = 16 << 20
            let transport = CurlMultiTransport(options: options)
            defer { transport.shutdown() }
            var part = TMDbWarmJob(configuration: tmdb, store: store, transport: transport, time: time, logger: logger)
            part.stop = stop
            return try await part.run(imdbIDs: ids)
        }

        /// A warm of TMDb alone: no OMDb key is needed and no OMDb call made.
        func runTMDbOnly(
            _ tmdb: TMDbWarmConfiguration, worklists: [String], job: JobFile?, location: DatabaseLocation,
            logger: Logger, signals: StopSignals, pool: PostgresPoolService, time: TimeSource
        ) async throws {
            let started = ContinuousClock.now
            let metricsPath = metricsFile ?? job?.metricsFile
            try validateMetricsFile(metricsPath)
            let format = worklistFormat.resolved(job: job)
            let ids = try Self.ids(in: worklists, format: format)
            let lock = try Self.lock(location, wait: wait, signals: signals, logger: logger)
            defer { lock?.release() }
            let store = try await common.open(location, job: job, logger: logger, pool: pool)
            var options = CurlMultiTransport.Options()
            options.apply((job?.settings ?? SettingValues()).overlaid(by: fetch.flags.values))
            var summary = WarmSummary()
            do {
                summary.tmdb = try await Self.runTMDb(
                    tmdb, ids: ids, store: store, options: options, time: time, logger: logger, stop: signals.stop)
            } catch {
                await store.close()
                throw fail(error.description, status: ExitStatus.of(error))
            }
            print(SummaryReport.text(tmdb: summary.tmdb ?? TMDbWarmSummary(), database: location.displayName))
            var status = Self.exitStatus(for: summary.tmdb)
            if let metricsPath {
                do {
                    let metrics = try await WarmMetrics.readTMDbOnly(
                        from: store, summary: summary, exitStatus: status, duration: ContinuousClock.now - started,
                        now: time.now)
                    try MetricsTextfile.write(metrics, to: metricsPath)
                } catch {
                    StandardError.write("filmcache: metrics file not written: \(error)")
                    if status == 0 { status = ExitStatus.ioError }
                }
            }
            await store.close()
            if status != 0 { throw ExitCode(status) }
        }

        /// The exit status TMDb's part of a run asks for: 78 when TMDb refused the token, 75 when
        /// it stopped with work left or nothing got an answer, else 0.
        static func exitStatus(for tmdb: TMDbWarmSummary?) -> Int32 {
            guard let tmdb else { return 0 }
            if tmdb.stopDetail?.contains("refused the token") == true { return ExitStatus.configuration }
            if tmdb.deferred > 0 { return ExitStatus.tryAgainLater }
            if tmdb.failed > 0 && tmdb.fetched + tmdb.notFound + tmdb.notOnTMDb == 0 { return ExitStatus.tryAgainLater }
            return 0
        }

        /// Whether a run that stopped for `reason` goes on to fetch posters: not after a signal, the
        /// time limit, or an endpoint that is not OMDb or cannot be reached.
        static func fetchesPosters(after reason: StopReason?) -> Bool {
            switch reason {
            case nil, .budgetSpent?, .limitReached?, .tooManyFailures?: true
            default: false
            }
        }

        /// The exit status of a run that ended with `summary`.
        static func exitStatus(for summary: WarmSummary) -> Int32 {
            switch summary.stopReason {
            case .notOMDb?: ExitStatus.protocolError
            case .unreachable?: ExitStatus.unavailable
            case nil: summary.nothingSucceeded ? ExitStatus.tryAgainLater : 0
            case _?: ExitStatus.tryAgainLater
            }
        }

        static func exitStatus(for error: WarmError) -> Int32 {
            switch error {
            case .invalidKey: ExitStatus.configuration
            case .worklist: ExitStatus.dataError
            case .store(let error): ExitStatus.of(error)
            case .unreachable: ExitStatus.unavailable
            }
        }
    }
}
