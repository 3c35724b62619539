import ArgumentParser
import FilmCacheKit
import FilmCachePostgres
import FilmCacheServe
import Foundation
import Logging

extension FilmCacheCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Answer apps like OMDb, from the cache: an OMDb-compatible HTTP endpoint.",
            usage: "filmcache serve [--job <file>] --tokens-file <tokens-file> [<options>]",
            discussion: """
                GET /?apikey=TOKEN&i=tt0133093 (and t=, s=, Season=, Episode=, plot=, type=,
                y=, page=) is answered with OMDb's body and status. TOKEN is one of the
                client tokens in --tokens-file (one a line, # comments), never the OMDb
                key, which comes from where warm takes it. A fresh film is answered from
                the cache; a missing or stale one is fetched once however many ask at
                once, through warm's rate limit, quota ledger, retries and breaker, stored
                and answered. t=, s= and Season= answers are kept with their own TTL.
                When the day's budget is spent or OMDb is down, a stale film is served
                with Age and Warning headers; a miss gets OMDb's "Request limit reached!"
                with Retry-After until the quota day resets, or "Error getting data." with
                503. Every request counts toward its film's demand, which the nightly plan
                reads.

                TMDb too: GET /3/find/{imdb_id}?external_source=imdb_id, /3/movie/{id},
                /3/tv/{id}, /3/tv/{id}/season/{n}, /3/configuration and /3/search/multi,
                with their query parameters, answered with TMDb's body and status, so an
                app changes only TMDb's base URL (to http://HOST:PORT/3). The client
                token comes as api_key= or Authorization: Bearer; TMDb is asked with the
                cache's own token, from TMDB_API_TOKEN or --tmdb-token-file. Answers are
                kept byte for byte with the same TTLs; a 429 from TMDb holds every TMDb
                call for its Retry-After. Without a TMDb token, /3/ answers from the
                cache only.

                Also: /healthz, /quota (quota --json), /metrics (Prometheus), and / with
                no query: a dashboard.

                SIGTERM or SIGINT: stop taking connections, finish the requests in flight,
                write the last request counts, give unsent reservations back, exit 0.
                SIGHUP: read the tokens file again (a bad file keeps the old tokens).

                Examples:
                  OMDB_API_KEY=… filmcache serve --db films.sqlite \\
                    --tokens-file tokens.txt
                  filmcache serve --job /etc/filmcache/serve.toml --listen 0.0.0.0:8080 \\
                    --tokens-file /etc/filmcache/tokens
                """
        )

        @OptionGroup var common: CommonOptions

        @OptionGroup var jobOptions: JobOptions

        @Option(help: "Address and port to listen on (port 0: a free one, logged).")
        var listen: String = "127.0.0.1:8080"

        @Option(help: "The client tokens apps send as apikey: one a line, # comments.")
        var tokensFile: String

        @Option(help: Setting.answerTTLHours.argumentHelp)
        var answerTtlHours: Double?

        @Option(help: Setting.negativeTTLHours.argumentHelp)
        var negativeTtlHours: Double?

        @Option(help: Setting.requestTimeout.argumentHelp)
        var requestTimeout: Double?

        @Option(help: Setting.requestHeadTimeout.argumentHelp)
        var requestHeadTimeout: Double?

        @Option(help: Setting.ioThreads.argumentHelp)
        var ioThreads: Int?

        @OptionGroup var fetch: FetchOptions

        @OptionGroup(title: "Freshness and budget") var planning: PlanOptions

        @OptionGroup(title: "TMDb") var tmdbOptions: TMDbOptions

        func validate() throws {
            _ = try Self.address(listen)
            try flags.check()
        }

        /// serve's own flags given, by setting.
        var flags: SettingFlags {
            var flags = SettingFlags()
            flags.add(.answerTTLHours, answerTtlHours)
            flags.add(.negativeTTLHours, negativeTtlHours)
            flags.add(.requestTimeout, seconds: requestTimeout)
            flags.add(.requestHeadTimeout, seconds: requestHeadTimeout)
            flags.add(.ioThreads, ioThreads)
            return flags
        }

        /// `HOST:PORT` (`[v6]:PORT` too) as host and port.
        static func address(_ text: String) throws -> (host: String, port: Int) {
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                (0...65_535).contains(port)
            else {
                throw ValidationError("--listen takes HOST:PORT, e.g. 127.0.0.1:8080")
            }
            var host = String(text[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty else { throw ValidationError("--listen takes HOST:PORT, e.g. 127.0.0.1:8080") }
            return (host, port)
        }

        func run() async throws {
            let job = try jobOptions.load()
            let logger = try common.makeLogger(job: job)
            let location = try common.location(job: job)
            let time = try ReferenceTime.source()
            let tokens: ServeTokens
            do {
                tokens = try ServeTokens.load(path: tokensFile)
            } catch {
                throw fail(error.description, status: ExitStatus.configuration)
            }
            var (configuration, options) = try fetch.configuration(
                database: location.displayName, worklists: [], job: job, jobPath: jobOptions.path)
            planning.apply(to: &configuration.planSettings, job: job)
            var settings = ServeSettings()
            let given = (job?.settings ?? SettingValues()).overlaid(by: flags.values)
            settings.apply(given)
            let (host, port) = try Self.address(listen)

            // A PostgreSQL cache's pool runs in the serve group, shut down after everything that uses it.
            let pool = PostgresPoolService(time: time)
            let store = try await common.open(location, job: job, logger: logger, pool: pool)
            let metrics = ServeMetrics()
            let transport = CurlMultiTransport(options: options)
            defer { transport.shutdown() }
            let engine = ServeEngine(
                store: store, tokens: tokens, configuration: configuration, settings: settings,
                transport: CountingTransport(transport, metrics: metrics), time: time, logger: logger)
            let tmdb = try tmdbEngine(
                store: store, engine: engine, metrics: metrics, settings: settings, curl: options, job: job, time: time,
                logger: logger)
            defer { tmdb.transport?.shutdown() }
            let pages = ServePages(
                store: store, configuration: configuration, metrics: metrics, now: time.wall.now, logger: logger)

            // SIGHUP reads the tokens file again; a file that is now bad leaves the old tokens in place.
            signal(SIGPIPE, SIG_IGN)
            let reload = await TokenReloadService(engine: engine, path: tokensFile, logger: logger)

            var listenOptions = ServeListenOptions(host: host, port: port)
            if let deadline = given[.requestHeadTimeout] { listenOptions.headDeadline = deadline }
            listenOptions.ioThreads = given[.ioThreads]
            do {
                try await ServeHTTP.run(
                    engine: engine, tmdb: tmdb.engine, metrics: metrics, pages: pages, options: listenOptions,
                    time: time,
                    logger: logger, beside: [pool, reload])
            } catch {
                await store.close()
                throw fail("serve: \(error)", status: ExitStatus.unavailable)
            }
            await store.close()
            logger.notice(
                "stopped",
                metadata: [
                    "upstream_calls": "\(engine.upstreamCalls)", "tmdb_upstream_calls": "\(tmdb.engine.upstreamCalls)",
                ])
        }

        /// TMDb's side of the endpoint over `store`, taking `engine`'s client tokens; with the
        /// transport it asks TMDb through (none without a TMDb token: the cache's answers only).
        private func tmdbEngine(
            store: any CacheBackend, engine: ServeEngine, metrics: ServeMetrics, settings: ServeSettings,
            curl options: CurlMultiTransport.Options, job: JobFile?, time: TimeSource, logger: Logger
        ) throws -> (engine: TMDbServeEngine, transport: CurlMultiTransport?) {
            var upstream: TMDbServeEngine.Upstream?
            var transport: CurlMultiTransport?
            if let endpoint = try tmdbOptions.endpoint(job: job, jobPath: jobOptions.path, required: false) {
                let given = tmdbOptions.settings(job: job)
                // OMDb's timeouts; TMDb's own calls at once, and room for its larger bodies.
                var options = options
                options.maxInFlight = given.value(.tmdbMaxInFlight)
                options.maxBodyBytes = 16 << 20
                let curl = CurlMultiTransport(options: options)
                transport = curl
                // The cache keeps TMDb's calls by day.
                upstream = TMDbServeEngine.Upstream(
                    endpoint: endpoint, transport: TMDbCountingTransport(curl, metrics: metrics),
                    rate: given.value(.tmdbRate), maxInFlight: given.value(.tmdbMaxInFlight), calls: store)
            } else {
                logger.notice("no TMDb token: TMDb's paths are answered from the cache only")
            }
            let tmdb = TMDbServeEngine(
                store: store, accepts: { [engine] in engine.accepts(token: $0) }, upstream: upstream,
                settings: settings, time: time, logger: logger)
            return (tmdb, transport)
        }
    }
}
