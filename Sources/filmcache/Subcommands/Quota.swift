import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

extension FilmCacheCommand {
    struct Quota: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "quota",
            abstract: "Show the OMDb quota: today, the last 30 days, the observed reset, and the runs.",
            usage: "filmcache quota [<options>]",
            discussion: """
                Reads the quota ledger and the run history in the cache; never calls OMDb.
                The key is the one in OMDB_API_KEY or --api-key-file, or --key by the
                fingerprint reports print (or its first digits); with none of them, the busiest key in the ledger
                (most calls today, then in the last 30 days). The limit is --daily-limit
                when given, else the one the key's latest warm was run with; the reserve is
                --reserve (default 5%). The quota day resets at midnight in
                --quota-timezone; the observed reset is the first OMDb answer after a day
                that ran out. TMDb sets no daily quota; TMDb calls counted per UTC day are
                shown after the runs when there are any. An absent database is read as empty
                and is not created.

                Examples:
                  filmcache quota --db films.sqlite
                  filmcache quota --db films.sqlite --json | jq '.left'
                  filmcache quota --db films.sqlite --prometheus | grep _left
                """
        )

        @OptionGroup var common: CommonOptions

        @OptionGroup var jobOptions: JobOptions

        @OptionGroup(title: "Budget") var planning: BudgetOptions

        @Option(help: "Read the API key from this file instead of OMDB_API_KEY (only its ledger is read).")
        var apiKeyFile: String?

        @Option(name: .customLong("key"), help: "Show the key with this fingerprint (the hex digits reports print).")
        var fingerprint: String?

        @Flag(help: "Print the quota as JSON.")
        var json = false

        @Flag(
            help: ArgumentHelp(
                "Print the quota gauges in Prometheus text format (a warm's metrics file holds them too: never"
                    + " both in one textfile directory)."))
        var prometheus = false

        func validate() throws {
            if json && prometheus { throw ValidationError("--json and --prometheus exclude each other") }
            // Never echo the value: someone may have passed the key itself here.
            if let fingerprint, !KeyFingerprint.isWellFormed(fingerprint) {
                throw ValidationError("--key takes a key's fingerprint, the hex digits reports print (4 to 64 of them)")
            }
        }

        func run() async throws {
            let job = try jobOptions.load()
            let logger = try common.makeLogger(job: job)
            let key = try fingerprint?.lowercased() ?? keyFingerprint(file: apiKeyFile, job: job)
            try await Self.report(
                common.databasePath, job: job, logger: logger, key: key, keyNamed: fingerprint != nil,
                settings: planning.settings(job: job), dailyLimit: planning.dailyLimit ?? job?.settings[.dailyLimit],
                form: json ? .json : prometheus ? .prometheus : .text)
        }

        /// How the quota is printed.
        enum Form { case text, json, prometheus }

        /// Prints the quota of `key` (the busiest key when `nil`) in the database `databasePath`
        /// names: what `run()` does once its options are read, and what a plain `quota` does
        /// without the parser (``QuotaRequest``). `keyNamed`: the key came from `--key`.
        static func report(
            _ databasePath: String?, job: JobFile?, logger: Logger, key: String?, keyNamed: Bool,
            settings: PlanSettings, dailyLimit: Int?, form: Form
        ) async throws {
            let now = try ReferenceTime.now()
            let location = try CommonOptions.location(flag: databasePath, job: job)
            let store = try await CommonOptions.openForReading(location, job: job, logger: logger)
            let status: QuotaStatus
            var tmdb: TMDbCallHistory?
            do {
                status = try await QuotaStatus.load(
                    store: store, keyFingerprint: key, settings: settings, dailyLimit: dailyLimit, now: now)
                tmdb = try await TMDbCallHistory.load(store: store, now: now, days: status.history.count)
            } catch {
                throw fail(error.description, status: ExitStatus.of(error))
            }
            if keyNamed, !status.keyInLedger {
                // Never echo the value: it may be the key itself, which is eight hex digits too.
                let known = status.otherKeys.map(KeyFingerprint.short)
                throw fail(
                    "--key names no key in the ledger"
                        + (known.isEmpty ? " (it is empty)" : "; its keys: " + known.joined(separator: ", ")),
                    status: ExitStatus.usage)
            }
            switch form {
            case .json: print(QuotaReport.json(status, tmdb: tmdb))
            case .prometheus: print(QuotaReport.prometheus(status), terminator: "")
            case .text: print(QuotaReport.text(status, database: location.displayName, tmdb: tmdb))
            }
        }
    }
}
