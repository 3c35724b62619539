import ArgumentParser
import FilmCacheKit
import FilmCachePostgres
import Foundation
import Logging

extension FilmCacheCommand {
    struct Posters: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "posters",
            abstract: "Download the poster of every cached film into a content-addressed store. Never calls OMDb.",
            usage: "filmcache posters [--job <file>] [--store <dir>] [--prune] [<options>]",
            discussion: """
                Each poster is kept once under DIR/ab/<sha256>.<ext>; the cache's posters
                table says which file holds each film's poster. Only image/* answers whose
                bytes are JPEG, PNG or WebP are kept. Later runs revalidate stored posters
                (If-None-Match, If-Modified-Since) once they are --poster-revalidate-days old;
                a poster that is gone (404, 410) is asked for again after
                --poster-gone-retry-days. --prune removes files no film references; it
                follows no symlink below DIR and removes only regular files the store wrote.
                A poster host must resolve to public addresses, on every redirect too:
                loopback, private, link-local and the like are refused and recorded, unless
                the host, as the poster URL spells it, is allowed with --poster-allow-host.

                With --source tmdb the posters are TMDb's: for each stored TMDb entry with a
                poster_path, {secure_base_url}{size}{poster_path}, the base and the sizes
                read from TMDb's /configuration (the one call that carries the TMDb token,
                from TMDB_API_TOKEN or --tmdb-token-file, to --tmdb-base-url; the image host
                never gets it). --size is one of TMDb's poster_sizes (default w342). Each is
                recorded under its own key, tmdb/SIZE/TYPE/ID (tmdb/w342/movie/550), apart
                from the film's OMDb poster, and stored, revalidated and pruned as above.

                Exit status 0 when done, 75 when interrupted, when no poster could be
                fetched at all or when the cache database or TMDb's /configuration is
                unavailable, 74 when the cache or the store cannot be written, 64 a --size
                TMDb does not list, 78 no TMDb token or one TMDb refused.

                Examples:
                  filmcache posters --db films.sqlite --store /var/lib/filmcache/posters
                  filmcache posters --job /etc/filmcache/nightly.toml --prune
                  filmcache posters --db films.sqlite --store posters/ --source tmdb --size w500
                """
        )

        @OptionGroup var common: CommonOptions

        @OptionGroup var jobOptions: JobOptions

        @Option(
            name: .customLong("store"),
            help: ArgumentHelp(
                "The poster store directory (created when missing). Default: the job file's poster_store.",
                valueName: "dir"))
        var storePath: String?

        @Flag(help: "Afterwards remove store files no film references (and temporary files of killed runs).")
        var prune = false

        @OptionGroup(title: "Posters") var posterOptions: PosterOptions

        @Option(
            help: ArgumentHelp(
                "omdb (each film's Poster URL) or tmdb (each stored TMDb entry's poster_path).",
                valueName: "source"))
        var source: ExportSource = .omdb

        @Option(
            help: ArgumentHelp(
                "With --source tmdb: the poster size, one of the poster_sizes TMDb's /configuration lists."
                    + " Default: \(TMDbImages.defaultSize).", valueName: "size"))
        var size: String?

        @Option(name: .customLong("tmdb-token-file"), help: Setting.tmdbTokenFile.argumentHelp(valueName: "file"))
        var tmdbTokenFile: String?

        @Option(name: .customLong("tmdb-base-url"), help: Setting.tmdbBaseURL.argumentHelp(valueName: "url"))
        var tmdbBaseURL: String?

        func validate() throws {
            if source != .tmdb {
                for (given, flag) in [
                    (size, "--size"), (tmdbTokenFile, "--tmdb-token-file"), (tmdbBaseURL, "--tmdb-base-url"),
                ]
                where given != nil {
                    throw ValidationError("\(flag) is for --source tmdb")
                }
            }
        }

        func run() async throws {
            let job = try jobOptions.load()
            let logger = try common.makeLogger(job: job)
            guard let directory = storePath ?? job?.posterStore else {
                throw fail(
                    "name the poster store with --store DIR (or poster_store in a job file)", status: ExitStatus.usage)
            }
            // TMDb's settings are checked before anything is opened.
            let endpoint = source == .tmdb ? try tmdbEndpoint(job: job) : nil
            let location = try common.location(job: job)
            if case .sqlite(let database) = location, !FileManager.default.fileExists(atPath: database) {
                throw fail("no cache database at \(database)", status: ExitStatus.noInput)
            }
            let time = try ReferenceTime.source()
            let store = try PosterOptions.openStore(directory)
            let signals = await StopSignals(logger: logger)
            // A PostgreSQL cache's pool runs in the group, beside the run and shut down after it.
            let pool = PostgresPoolService(time: time)
            let summary = try await CommandGroup.run(beside: [signals, pool], logger: logger) {
                let cache = try await common.open(location, job: job, logger: logger, pool: pool)
                let summary: PosterSummary
                if let endpoint {
                    summary = try await Self.runTMDb(
                        cache: cache, tmdb: cache, endpoint: endpoint, size: size ?? TMDbImages.defaultSize,
                        store: store,
                        settings: posterOptions.settings(job: job), tmdbRate: tmdbRate(job: job), prune: prune,
                        stop: signals.stop, logger: logger, time: time)
                } else {
                    do throws(PosterJobError) {
                        summary = try await PosterOptions.run(
                            cache: cache, store: store, settings: posterOptions.settings(job: job), fetchedSince: nil,
                            prune: prune, stop: signals.stop, logger: logger, time: time)
                    } catch {
                        throw fail(error.description, status: PosterOptions.exitStatus(for: error))
                    }
                }
                await cache.close()
                return summary
            }
            let status = PosterOptions.exitStatus(for: summary)
            if status != 0 { throw ExitCode(status) }
        }

        /// TMDb's endpoint and token: the flags, else the job file's keys, else `TMDB_API_TOKEN` and
        /// TMDb's own base. Exit 78 without a token, 64 (flag) or 78 (job file) for a bad base URL.
        private func tmdbEndpoint(job: JobFile?) throws -> TMDbEndpoint {
            let values = job?.settings ?? SettingValues()
            let token: TMDbToken
            do {
                token = try TMDbToken.load(
                    environment: ProcessInfo.processInfo.environment,
                    file: tmdbTokenFile ?? values[Setting.tmdbTokenFile])
            } catch {
                throw fail(error.description, status: ExitStatus.configuration)
            }
            do {
                return try TMDbEndpoint(baseURL: tmdbBaseURL ?? values.value(Setting.tmdbBaseURL), token: token)
            } catch {
                throw fail(error.description, status: tmdbBaseURL != nil ? ExitStatus.usage : ExitStatus.configuration)
            }
        }

        /// TMDb's request rate for `/configuration`: the job file's, else the default.
        private func tmdbRate(job: JobFile?) -> Double {
            (job?.settings ?? SettingValues()).value(Setting.tmdbRate)
        }

        /// Reads TMDb's image base and sizes, then fetches the posters of `tmdb`'s entries at `size`.
        private static func runTMDb(
            cache: any CacheBackend, tmdb: any TMDbStore, endpoint: TMDbEndpoint, size: String, store: PosterStore,
            settings: PosterSettings, tmdbRate: Double, prune: Bool, stop: WarmStop, logger: Logger, time: TimeSource
        ) async throws -> PosterSummary {
            // TMDb's API on a transport of its own: the image hosts' never carries the token.
            let transport = CurlMultiTransport(options: CurlMultiTransport.Options())
            defer { transport.shutdown() }
            let pacer = TMDbPacer(
                rate: tmdbRate, pauseAfter: Setting.breakerPauseAfter.default,
                stopAfter: Setting.breakerStopAfter.default, coolDown: Setting.breakerCoolDown.default, time: time)
            let caller = TMDbCaller(
                endpoint: endpoint, transport: transport, pacer: pacer, backoff: .default, time: time, logger: logger)
            let images: TMDbImages
            do throws(TMDbPosterError) {
                images = try await TMDbImages.fetch(caller)
                try images.check(size: size)
            } catch {
                let status: Int32 =
                    switch error {
                    case .configuration: ExitStatus.tryAgainLater
                    case .refused: ExitStatus.configuration
                    case .unknownSize: ExitStatus.usage
                    }
                throw fail(error.description, status: status)
            }
            do {
                try await tmdb.countTMDbCalls(caller.takeCalls(), day: String(Timestamp.format(time.now).prefix(10)))
            } catch {
                logger.warning("TMDb's calls could not be counted", metadata: ["error": "\(error)"])
            }
            do throws(PosterJobError) {
                return try await PosterOptions.run(
                    cache: cache, store: store, settings: settings, prune: prune, logger: logger, time: time
                ) { (job) throws(PosterJobError) in
                    try await TMDbPosterJob(job: job, tmdb: tmdb, images: images, size: size).run(stop: stop)
                }
            } catch {
                throw fail(error.description, status: PosterOptions.exitStatus(for: error))
            }
        }
    }
}
