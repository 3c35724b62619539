import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

@main
struct FilmCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filmcache",
        abstract: "Keeps a shared SQLite cache of OMDb film metadata full and fresh.",
        discussion: """
            The API key comes from OMDB_API_KEY or --api-key-file, never from an argument.
            A job file (--job) gathers a run's settings; flags given override it.

            Examples:
              OMDB_API_KEY=… filmcache warm --db films.sqlite Data/watchlist.txt
              filmcache warm --job /etc/filmcache/nightly.toml
              filmcache show tt0172495 --db films.sqlite --json
              filmcache quota --db films.sqlite
              filmcache stats --db films.sqlite Data/watchlist.txt
            """,
        version: FilmCacheVersion.current,
        subcommands: [Warm.self, Plan.self, Show.self, Quota.self, Stats.self]
    )
}

/// Flags every command shares.
struct CommonOptions: ParsableArguments {
    @Option(
        name: .customLong("db"),
        help: "The cache database file (created when absent). Default: the job file's db, else filmcache.sqlite.")
    var databasePath: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .notice

    /// The cache for a command that only reads it: an absent file counts as an empty cache and is not created.
    func openForReading(logger: Logger, job: JobFile? = nil) throws -> CacheStore {
        let databasePath = database(job: job)
        let exists = FileManager.default.fileExists(atPath: databasePath)
        do {
            return try CacheStore(path: exists ? databasePath : ":memory:", logger: logger)
        } catch {
            throw fail(error.description, status: ExitStatus.ioError)
        }
    }

    /// The database to use: `--db`, else the job file's `db`, else `filmcache.sqlite` in the working directory.
    func database(job: JobFile? = nil) -> String {
        databasePath ?? job?.databasePath ?? "filmcache.sqlite"
    }

    /// The log line format; `nil` picks by whether standard error is a terminal.
    @Option(help: "Log line format: human, logfmt, json. Default: human on a terminal, logfmt otherwise.")
    var logFormat: LogFormat?

    /// A logger writing to standard error at the chosen level, in the chosen format.
    ///
    /// On a terminal, log lines clear the progress line first and it is redrawn below them.
    func makeLogger(job: JobFile? = nil) -> Logger {
        let terminal = TerminalStatusLine.standardErrorIsTerminal
        let format = logFormat ?? job?.logFormat.flatMap(LogFormat.init(rawValue:)) ?? (terminal ? .human : .logfmt)
        var logger = Logger(label: "filmcache") { label -> any LogHandler in
            let handler: any LogHandler =
                switch format {
                case .human: StreamLogHandler.standardError(label: label)
                case .logfmt: LogfmtLogHandler(label: label)
                case .json: JSONLogHandler(label: label)
                }
            return terminal ? StatusLineLogHandler(wrapping: handler) : handler
        }
        logger.logLevel = logLevel
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Exit statuses from sysexits.h, the vocabulary cron and systemd understand.
enum ExitStatus {
    static let dataError: Int32 = 65
    static let unavailable: Int32 = 69
    static let ioError: Int32 = 74
    static let tryAgainLater: Int32 = 75
    static let configuration: Int32 = 78
}

/// Prints `message` to standard error prefixed with the command name, and exits with `status`.
func fail(_ message: String, status: Int32) -> ExitCode {
    FileHandle.standardError.write(Data("filmcache: \(message)\n".utf8))
    return ExitCode(status)
}

/// The fingerprint of the key in OMDB_API_KEY or `file`, or `nil` when neither names one; exits 78 on an unreadable file.
///
/// For commands that only read the ledger: they pick a key by it but never send it anywhere.
func keyFingerprint(file: String?, job: JobFile? = nil) throws -> String? {
    do {
        return try JobOptions.apiKey(file: file, job: job).fingerprint
    } catch .missingKey {
        return nil
    } catch {
        throw fail(error.description, status: ExitStatus.configuration)
    }
}
