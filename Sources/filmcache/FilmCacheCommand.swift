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

            Examples:
              OMDB_API_KEY=… filmcache warm --db films.sqlite Data/watchlist.txt
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
    @Option(name: .customLong("db"), help: "The cache database file (created when absent).")
    var databasePath = "filmcache.sqlite"

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .notice

    /// The cache for a command that only reads it: an absent file counts as an empty cache and is not created.
    func openForReading(logger: Logger) throws -> CacheStore {
        let exists = FileManager.default.fileExists(atPath: databasePath)
        do {
            return try CacheStore(path: exists ? databasePath : ":memory:", logger: logger)
        } catch {
            throw fail(error.description, status: ExitStatus.ioError)
        }
    }

    /// A logger writing to standard error at the chosen level.
    func makeLogger() -> Logger {
        var logger = Logger(label: "filmcache") { StreamLogHandler.standardError(label: $0) }
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
func keyFingerprint(file: String?) throws -> String? {
    do {
        return try APIKey.load(environment: ProcessInfo.processInfo.environment, file: file).fingerprint
    } catch .missingKey {
        return nil
    } catch {
        throw fail(error.description, status: ExitStatus.configuration)
    }
}
