import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

extension FilmCacheCommand {
    struct Plan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plan",
            abstract: "Show tonight's work without calling OMDb: what is fresh, due, and deferred.",
            usage: "filmcache plan [--job <file>] [--json] [<options>] [<worklist> ...]",
            discussion: """
                Reads the worklists and the cache and prints what `warm` would do now: IDs
                considered, fresh, to fetch (missing, then stale by how overdue × how many
                worklists name them, then rows from an older normalizer; within each, the
                films apps asked `serve` for most go first: × (1 + requests)), deferred for
                lack of today's budget (and in how many quota days the backlog clears), the
                due IDs apps asked for, and negative answers still waiting. Today's use comes from the ledger of the key
                in OMDB_API_KEY or --api-key-file; with no key, from the busiest key of the
                day. An absent database is treated as empty and is not created. With --job,
                the job file's worklists, database, key and budget are used; flags given
                override them. With --source tmdb (or the job file's sources), TMDb's plan
                follows OMDb's: IDs to resolve through /find, entries to fetch (missing,
                stale by tmdb_ttl_days, named by TMDb's changes feed), and the calls needed;
                with --source tmdb alone, only TMDb's.

                Examples:
                  filmcache plan --db films.sqlite Data/watchlist.txt
                  filmcache plan --job /etc/filmcache/nightly.toml
                  filmcache plan --db films.sqlite --json watchlist.txt | jq .deferred
                  filmcache plan --db films.sqlite --json --ids watchlist.txt \\
                    | jq -r '.toFetchIDs[]'
                """
        )

        @OptionGroup var common: CommonOptions

        @OptionGroup var jobOptions: JobOptions

        @OptionGroup var worklistFormat: WorklistFormatOption

        @OptionGroup(title: "Freshness and budget") var planning: PlanOptions

        @OptionGroup var refreshing: RefreshOption

        @Option(help: "Read the API key from this file instead of OMDB_API_KEY (only its ledger is read).")
        var apiKeyFile: String?

        @Flag(help: "Print the plan as JSON.")
        var json = false

        @Flag(help: "With --json, also list the IDs to fetch and the deferred ones, in order.")
        var ids = false

        @Option(
            name: .customLong("source"),
            help: ArgumentHelp(
                "What to plan: omdb, tmdb (repeat the flag for both). Default: the job file's sources, else omdb.",
                valueName: "source"))
        var sources: [String] = []

        @Argument(help: "Worklist files (replacing the job file's).")
        var worklists: [String] = []

        func validate() throws {
            guard !worklists.isEmpty || jobOptions.path != nil else {
                throw ValidationError("name at least one worklist file, or a --job file that lists worklists")
            }
            for source in sources where !JobKey.sourceNames.contains(source) {
                throw ValidationError(
                    "--source: \"\(LogText.escaped(source))\" is not one of "
                        + JobKey.sourceNames.joined(separator: ", "))
            }
        }

        func run() async throws {
            let job = try jobOptions.load()
            let logger = try common.makeLogger(job: job)
            let request = Request(
                databasePath: common.databasePath, worklists: try JobOptions.worklists(arguments: worklists, job: job),
                job: job, format: worklistFormat.resolved(job: job), settings: planning.settings(job: job),
                sources: sources, apiKeyFile: apiKeyFile, json: json, ids: ids, refresh: refreshing.refresh)
            try await Self.report(request, logger: logger)
        }

        /// What `plan` is asked, its options read: by the parser, or without it (``PlanRequest``).
        struct Request: Sendable {
            var databasePath: String?
            var worklists: [String]
            var job: JobFile?
            var format: WorklistFormat
            var settings: PlanSettings
            var sources: [String]
            var apiKeyFile: String?
            var json: Bool
            var ids: Bool
            var refresh = false
        }

        /// Prints the plan `request` asks for.
        static func report(_ request: Request, logger: Logger) async throws {
            let job = request.job
            let values = job?.settings ?? SettingValues()
            let planned = Set(request.sources.isEmpty ? values.value(.sources) : request.sources)
            // The key's name is worked out while the worklists are read and planned.
            let key = planned.contains("omdb") ? try ledgerKey(file: request.apiKeyFile, job: job) : nil
            let now = try ReferenceTime.now()
            let worklist = try WorklistFormatOption.read(request.worklists, format: request.format)
            worklist.log(to: logger)
            var settings = request.settings
            RefreshOption.apply(request.refresh, to: &settings, now: now)
            let location = try CommonOptions.location(flag: request.databasePath, job: job)
            let store = try await CommonOptions.openForReading(location, job: job, logger: logger)
            let database = location.displayName
            let (json, ids) = (request.json, request.ids)
            var tmdb: TMDbNightPlan?
            if planned.contains("tmdb") {
                do {
                    tmdb = try await TMDbNightPlan.make(
                        worklist: worklist, store: store,
                        ttl: values.value(.tmdbTTLDays) * FreshnessPolicy.day,
                        findTTL: values.value(.tmdbFindTTLDays) * FreshnessPolicy.day, now: now)
                } catch {
                    throw fail(error.description, status: ExitStatus.of(error))
                }
            }
            guard planned.contains("omdb") else {
                guard let tmdb else { return }
                print(
                    json
                        ? TMDbPlanReport.json(tmdb, ids: ids)
                        : PlanReport.text(tmdb, files: worklist.files, database: database))
                return
            }
            let night: NightPlan
            do {
                night = try await NightPlan.make(worklist: worklist, store: store, settings: settings, now: now) {
                    await key?.derivedFingerprint
                }
            } catch {
                throw fail(error.description, status: ExitStatus.of(error))
            }
            let fingerprint = key?.fingerprint
            if json {
                print(PlanReport.json(night, keyFingerprint: fingerprint, ids: ids, tmdb: tmdb))
            } else {
                print(PlanReport.text(night, keyFingerprint: fingerprint, database: database, tmdb: tmdb))
            }
        }
    }
}
