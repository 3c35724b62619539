import ArgumentParser
import FilmCacheKit
import Foundation
import Logging

/// The program's start: the command runs on the first thread until it first waits, then on the
/// concurrency runtime's threads, and exits the process with its status, while the first thread
/// only waits.
///
/// `Task.immediate` starts it here at once: `show`, `quota` and `plan` of a SQLite cache that
/// exists, with no key's name to wait for, never wait (its read-only calls are made on the
/// caller's thread), so they run start to end on this thread and no other is made for them (a
/// fifth of `quota`'s start went to making threads and switching between them). The task is not
/// isolated to the main actor: after a wait it goes on on the runtime's threads. Its priority is
/// medium, as a detached task's (this thread's own would be high). An async `main` would run
/// it on those threads through `dispatch_main`, which ends the first thread with `pthread_exit`:
/// that unwinds its stack through the binary's unwind tables (loading the unwinder and paging the
/// tables in at every start) to leave a thread that only waits, as this one does.
/// Nothing here runs on the main actor or the main queue.
@main
enum FilmCacheProgram {
    static func main() {
        Task.immediate(priority: .medium) { @concurrent () async in
            Foundation.exit(await FilmCacheCommand.status(Array(CommandLine.arguments.dropFirst())))
        }
        while true { pause() }
    }
}

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
        // Each command names itself (`commandName`). Without one, ArgumentParser names it with
        // `String(describing:)` of its type at every start, and that first cast of each type scans the
        // whole binary's protocol conformances: about 8 ms of every start over these eleven.
        subcommands: [
            Warm.self, Serve.self, Plan.self, Show.self, Quota.self, Stats.self, Posters.self, Export.self, Import.self,
            Db.self,
        ]
    )

    /// Runs the command with SIGPIPE ignored, so that standard output closed under it (`| head`) is a
    /// write error, not the end of the process, and returns its exit status: 74 when what it wrote to
    /// standard output did not all get out (unless it already failed for another reason, whose status
    /// it keeps, or its output is a courtesy: ``OutputIsACourtesy``).
    ///
    /// A plain `show` of a film in a SQLite file, `quota` and `plan` are answered before the parser is
    /// made (``PlainArguments``): they are run most, and the parser took a third of their start.
    static func status(_ arguments: [String]) async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        if let show = ShowRequest(arguments), let path = show.cache() {
            return await runToTheEnd { try await show.run(from: path) }
        }
        if let quota = QuotaRequest(arguments) {
            return await runToTheEnd { try await quota.run() }
        }
        if let plan = PlanRequest(arguments) {
            return await runToTheEnd { try await plan.run() }
        }
        return await runToTheEnd()
    }

    /// Parses and runs the command off the main actor (the command is made and run in one place,
    /// never sent across), or runs `plain`, a command line read without the parser; returns the exit
    /// status.
    private nonisolated static func runToTheEnd(_ plain: (@Sendable () async throws -> Void)? = nil) async -> Int32 {
        var status = ExitCode.success.rawValue
        var outputMatters = true
        do {
            if let plain {
                try await plain()
                return StandardOutput.finish(status: status)
            }
            var command = try await asyncParseAsRoot(nil)
            outputMatters = !(command is any OutputIsACourtesy)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let text = fullMessage(for: error)
            if !text.isEmpty {
                if code == .success { print(text) } else { StandardError.write(text) }
            }
            status = code.rawValue
        }
        return StandardOutput.finish(status: status, matters: outputMatters)
    }
}

/// A command whose standard output is a courtesy beside its work (`warm`: the work is committed and
/// the status says how it went), so standard output closed under it does not change its status.
protocol OutputIsACourtesy {}

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

    /// The cache for a command that only reads it: an absent file, or a PostgreSQL database with no
    /// filmcache schema, counts as an empty cache and is not created; a PostgreSQL database is never
    /// created or migrated.
    func openForReading(logger: Logger, job: JobFile? = nil) async throws -> any CacheBackend {
        try await Self.openForReading(try location(job: job), job: job, logger: logger)
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
            let handler: any LogHandler = LineLogHandler(
                label: label, format: format.lineFormat, now: WallClock.system.now)
            return terminal ? StatusLineLogHandler(wrapping: handler) : handler
        }
        logger.logLevel = level
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

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
    try ledgerKey(file: file, job: job)?.fingerprint
}

/// The key in OMDB_API_KEY, `file` or the job's key file, as ``keyFingerprint(file:job:)`` picks it,
/// its name still being worked out (``APIKey/derivedFingerprint``).
func ledgerKey(file: String?, job: JobFile? = nil) throws -> APIKey? {
    do {
        return try JobOptions.apiKey(file: file, job: job)
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
