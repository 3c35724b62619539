import ArgumentParser
import FilmCacheKit
import Foundation

extension FilmCacheCommand {
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Show what the cache holds: size, films by type, freshness, fetch ages, negative answers.",
            usage: "filmcache stats [--job <file>] [--json] [<options>] [<worklist> ...]",
            discussion: """
                Reads the cache only; never calls OMDb. Freshness is judged by the same TTL
                policy as warm and plan (the freshness flags change it). With worklists,
                also shows how many of their IDs are fresh, missing or stale. When the cache
                holds TMDb data, a TMDb section follows (entries, stale by the job file's
                tmdb_ttl_days, changed, mapped, calls, the changes feed). An absent
                database is read as empty and is not created.

                Examples:
                  filmcache stats --db films.sqlite
                  filmcache stats --db films.sqlite Data/watchlist.txt
                  filmcache stats --db films.sqlite --json | jq '.byType'
                """
        )

        @OptionGroup var common: CommonOptions

        @OptionGroup var jobOptions: JobOptions

        @OptionGroup var worklistFormat: WorklistFormatOption

        @OptionGroup(title: "Freshness") var planning: FreshnessOptions

        @Flag(help: "Print the stats as JSON.")
        var json = false

        @Argument(help: "Worklist files to measure the cache against (optional).")
        var worklists: [String] = []

        func run() async throws {
            let job = try jobOptions.load()
            let logger = try common.makeLogger(job: job)
            let now = try ReferenceTime.now()
            let worklists = worklists.isEmpty ? job?.worklists ?? [] : worklists
            var worklist: Worklist?
            if !worklists.isEmpty {
                worklist = try worklistFormat.read(worklists, job: job)
                worklist?.log(to: logger)
            }
            let settings = planning.settings(job: job)
            let store = try await common.openForReading(logger: logger, job: job)
            let location = try common.location(job: job)
            let stats: CacheStats
            do {
                stats = try await CacheStats.load(
                    store: store, database: location.displayName, file: location.sqlitePath, settings: settings,
                    worklist: worklist, now: now, tmdb: store,
                    tmdbTTL: (job?.settings ?? SettingValues()).value(.tmdbTTLDays) * FreshnessPolicy.day)
            } catch {
                throw fail(error.description, status: ExitStatus.of(error))
            }
            print(json ? StatsReport.json(stats) : StatsReport.text(stats))
        }
    }
}
