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
            The API key comes from OMDB_API_KEY or --api-key-file, never from an
            argument. A job file (--job) gathers a run's settings; flags given override
            it.

            Examples:
              OMDB_API_KEY=… filmcache warm --db films.sqlite Data/watchlist.txt
              filmcache warm --job /etc/filmcache/nightly.toml
              filmcache show tt0172495 --db films.sqlite --json
              filmcache quota --db films.sqlite
              filmcache stats --db films.sqlite Data/watchlist.txt
              filmcache posters --db films.sqlite --store posters/
              filmcache export --db films.sqlite > films.jsonl
              filmcache import --db restored.sqlite films.jsonl
              filmcache db copy films.sqlite postgresql://filmcache@db/films
            """,
        version: FilmCacheVersion.current,
        subcommands: [
            Warm.self, Serve.self, Plan.self, Show.self, Quota.self, Stats.self, Posters.self, Export.self, Import.self,
            Db.self,
        ]
    )
}

/// Flags every command shares.
struct CommonOptions: ParsableArguments {
    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "The cache database: a SQLite file, or postgresql://USER@HOST:PORT/DBNAME where the command reads"
                + " PostgreSQL (export does not). Default filmcache.sqlite.",
            discussion: "The PostgreSQL password comes from PGPASSWORD, ~/.pgpass or the job's db_password_file."))
    var databasePath: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .notice

    /// The cache for a command that only reads it: an absent file counts as an empty cache and is
    /// not created; a PostgreSQL database is never created or migrated.
    func openForReading(logger: Logger, job: JobFile? = nil) async throws -> any CacheBackend {
        let location = try location(job: job)
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            return try await open(.sqlite(path: ":memory:"), job: job, logger: logger)
        }
        return try await open(location, job: job, logger: logger, readOnly: true)
    }

    /// The log line format; `nil` picks by whether standard error is a terminal.
    @Option(help: "Log line format: human, logfmt, json. Default: human on a terminal, logfmt otherwise.")
    var logFormat: LogFormat?

    /// A logger writing to standard error at the chosen level, in the chosen format.
    ///
    /// On a terminal, log lines clear the progress line first and it is redrawn below them.
    /// A job file's `log_format` that is not one of the formats is exit 78, naming the key and the values.
    func makeLogger(job: JobFile? = nil) throws -> Logger {
        if let text = job?.logFormat, LogFormat(rawValue: text) == nil {
            throw fail(
                "job file \(job?.path ?? ""): log_format: \"\(LogText.escaped(text))\" is not one of "
                    + LogFormat.allCases.map(\.rawValue).joined(separator: ", "), status: ExitStatus.configuration)
        }
        return Self.makeLogger(level: logLevel, format: logFormat ?? job?.logFormat.flatMap(LogFormat.init(rawValue:)))
    }

    /// A logger writing to standard error at `level`, in `format` (`nil`: human on a terminal,
    /// logfmt otherwise), clearing and redrawing the progress line on a terminal.
    static func makeLogger(level: Logger.Level, format: LogFormat?) -> Logger {
        let terminal = TerminalStatusLine.standardErrorIsTerminal
        let format = format ?? (terminal ? .human : .logfmt)
        var logger = Logger(label: "filmcache") { label -> any LogHandler in
            let handler: any LogHandler = LineLogHandler(label: label, format: format.lineFormat)
            return terminal ? StatusLineLogHandler(wrapping: handler) : handler
        }
        logger.logLevel = level
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Exit statuses from sysexits.h, the vocabulary cron and systemd understand.
enum ExitStatus {
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    /// An input file that cannot be opened (EX_NOINPUT).
    static let noInput: Int32 = 66
    static let unavailable: Int32 = 69
    /// A directory or file the command must create cannot be (EX_CANTCREAT).
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
    static let tryAgainLater: Int32 = 75
    /// The server at the base URL does not speak OMDb's protocol (EX_PROTOCOL).
    static let protocolError: Int32 = 76
    static let configuration: Int32 = 78
}

/// Prints `message` to standard error prefixed with the command name, and exits with `status`.
func fail(_ message: String, status: Int32) -> ExitCode {
    StandardError.write("filmcache: \(message)")
    return ExitCode(status)
}

/// The fingerprint of the key in OMDB_API_KEY, `file` or the job's key file, or `nil` when none names one.
///
/// For commands that only read the ledger and call no one (`plan`, `quota`): they pick a key by it
/// but never send it anywhere, so they need no key. The cache's readers are not the key's
/// holders: a job's key file they may not read is skipped with a notice, and the report names the
/// busiest key, as with no key. An unreadable `--api-key-file` named on the command line is exit 78.
func keyFingerprint(file: String?, job: JobFile? = nil) throws -> String? {
    do {
        return try JobOptions.apiKey(file: file, job: job).fingerprint
    } catch .missingKey {
        return nil
    } catch .unreadableKeyFile(let path, let reason) where file == nil {
        StandardError.write(
            "filmcache: the job's key file \(path) cannot be read (\(reason)); reading the busiest key's ledger instead"
        )
        return nil
    } catch {
        throw fail(error.description, status: ExitStatus.configuration)
    }
}
