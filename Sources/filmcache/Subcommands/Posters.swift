import ArgumentParser
import FilmCacheKit
import FilmCachePostgres
import Foundation

extension FilmCacheCommand {
    struct Posters: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download the poster of every cached film into a content-addressed store. Never calls OMDb.",
            usage: "filmcache posters [--job <file>] [--store <dir>] [--prune] [<options>]",
            discussion: """
                Each poster is kept once under DIR/ab/cd/<sha256>.<ext>; the cache's posters
                table says which file holds each film's poster. Only image/* answers whose
                bytes are JPEG, PNG or WebP are kept. Later runs revalidate stored posters
                (If-None-Match, If-Modified-Since) once they are --poster-revalidate-days old;
                a poster that is gone (404, 410) is asked for again after
                --poster-gone-retry-days. --prune removes files no film references; it
                follows no symlink below DIR and removes only regular files the store wrote.
                A poster host must resolve to public addresses, on every redirect too:
                loopback, private, link-local and the like are refused and recorded, unless
                the host, as the poster URL spells it, is allowed with --poster-allow-host.

                Exit status 0 when done, 75 when interrupted, when no poster could be
                fetched at all or when the cache database is unavailable, 74 when the cache
                or the store cannot be written.

                Examples:
                  filmcache posters --db films.sqlite --store /var/lib/filmcache/posters
                  filmcache posters --job /etc/filmcache/nightly.toml --prune
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

        func run() async throws {
            let job = try jobOptions.load()
            let logger = try common.makeLogger(job: job)
            guard let directory = storePath ?? job?.posterStore else {
                throw fail(
                    "name the poster store with --store DIR (or poster_store in a job file)", status: ExitStatus.usage)
            }
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
                do throws(PosterJobError) {
                    summary = try await PosterOptions.run(
                        cache: cache, store: store, settings: posterOptions.settings(job: job), fetchedSince: nil,
                        prune: prune, stop: signals.stop, logger: logger, time: time)
                } catch {
                    throw fail(error.description, status: PosterOptions.exitStatus(for: error))
                }
                await cache.close()
                return summary
            }
            let status = PosterOptions.exitStatus(for: summary)
            if status != 0 { throw ExitCode(status) }
        }
    }
}
