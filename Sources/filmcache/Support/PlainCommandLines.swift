import FilmCacheKit
import FilmCacheSQLite
import Foundation

/// The few command lines answered without the argument parser, in the command's own code: a plain
/// `show` (``ShowRequest``), `quota` (``QuotaRequest``) and `plan` (``PlanRequest``).
///
/// These are the read commands scripts and people run most, so their start is most of their time,
/// and the parser's reflection over a command's options (each first cast scanning every protocol
/// conformance of a binary that links NIO, Hummingbird and postgres-nio) took a third of it. Every
/// other command line, and every one that would be answered otherwise (an option not taken here,
/// a repeated one, `--`, `--help`), goes to the parser.
struct PlainArguments {
    /// Each `--name VALUE` or `--name=VALUE` given, in order. Lists, not a dictionary and a set: they
    /// hold a few entries, and the first storage a `[String: String]` or a `Set<String>` in a process
    /// grows into (in the standard library's code) looks up the runtime's metadata for it by its
    /// mangled name, which scans every protocol conformance of the binary (8% of a plain `show`'s
    /// instructions). The `Set<String>` literals the requests pass are made by this module's code,
    /// which reaches that metadata without the scan (Package.swift's unsafeFlags say why).
    private var options: [(name: String, value: String)] = []
    /// The flags given.
    private(set) var flags: [String] = []
    /// The other arguments, in order.
    private(set) var positionals: [String] = []

    /// `arguments` after `command`, when they are only the options and flags named (each at most
    /// once; an option's value not empty after `=` and not starting with `-`) and at most
    /// `positionals` other arguments.
    init?(
        _ arguments: [String], command: String, options names: Set<String>, flags flagNames: Set<String>,
        positionals limit: Int
    ) {
        guard arguments.first == command else { return nil }
        var rest = arguments.dropFirst()[...]
        while let argument = rest.popFirst() {
            let (name, inline) =
                argument.firstIndex(of: "=").map {
                    (String(argument[..<$0]), String(argument[argument.index(after: $0)...]))
                } ?? (argument, nil)
            if names.contains(name), option(name) == nil {
                // `--db=` with nothing after it is `--db` to the parser, which takes the next argument.
                guard inline != "", let value = inline ?? rest.popFirst(), inline != nil || !value.hasPrefix("-")
                else { return nil }
                options.append((name, value))
            } else if flagNames.contains(argument), !flags.contains(argument) {
                flags.append(argument)
            } else if !argument.hasPrefix("-"), positionals.count < limit {
                positionals.append(argument)
            } else {
                return nil
            }
        }
    }

    /// The value given for the option `name`, if any.
    func option(_ name: String) -> String? {
        options.first { $0.name == name }?.value
    }
}

/// A `filmcache show` answered without the parser: `show [--db FILE] [--json] ID`, in any order,
/// the ID an IMDb ID or title URL, the file a SQLite cache that exists.
struct ShowRequest: Sendable {
    /// The film's ID, read from the title as the parsed command reads it.
    let imdbID: String
    let database: String?
    let json: Bool

    /// The request `arguments` (without the program's name) make, or `nil` when the parser is to
    /// read them (the title no IMDb ID among them).
    init?(_ arguments: [String]) {
        guard
            let plain = PlainArguments(
                arguments, command: "show", options: ["--db"], flags: ["--json"], positionals: 1),
            let title = plain.positionals.first, let imdbID = FilmShowing.imdbID(named: title)
        else { return nil }
        self.imdbID = imdbID
        database = plain.option("--db")
        json = plain.flags.contains("--json")
    }

    /// The SQLite file to show the film from, or `nil` when the parsed command is the one to say
    /// what is wrong: the database a URL, a name the command refuses or no file.
    func cache() -> String? {
        let name = database ?? "filmcache.sqlite"
        guard !DatabaseName.isURL(name), let path = try? DatabaseName.resolve(name),
            FileManager.default.fileExists(atPath: path)
        else { return nil }
        return path
    }

    /// Shows the film from the SQLite file at `path` as the parsed command does: a file that
    /// cannot be opened (another process holds it locked past the busy wait) fails here, once,
    /// as it fails there.
    func run(from path: String) async throws {
        let store = try await CommonOptions.open(
            .sqlite(path: path), job: nil, logger: FilmShowing.logger(level: .notice), readOnly: true)
        do {
            print(try await FilmShowing.text(of: imdbID, in: store, json: json))
        } catch {
            await store.close()
            throw fail(error.message, status: error.status)
        }
        await store.close()
    }
}

/// A `filmcache quota` answered without the parser: `quota [--db DB] [--json | --prometheus]`, the
/// key from OMDB_API_KEY (or the busiest in the ledger), every other setting its default.
struct QuotaRequest: Sendable {
    let database: String?
    let form: FilmCacheCommand.Quota.Form

    /// The request `arguments` (without the program's name) make, or `nil` when the parser is to
    /// read them.
    init?(_ arguments: [String]) {
        guard
            let plain = PlainArguments(
                arguments, command: "quota", options: ["--db"], flags: ["--json", "--prometheus"], positionals: 0),
            plain.flags.count < 2
        else { return nil }
        database = plain.option("--db")
        form = plain.flags.contains("--json") ? .json : plain.flags.contains("--prometheus") ? .prometheus : .text
    }

    /// Prints the quota as the parsed command does with the same defaults.
    func run() async throws {
        let logger = CommonOptions.makeLogger(level: .notice, format: nil)
        try await FilmCacheCommand.Quota.report(
            database, job: nil, logger: logger, key: try keyFingerprint(file: nil, job: nil), keyNamed: false,
            settings: PlanOptions.settings(job: nil, given: SettingValues()), dailyLimit: nil, form: form)
    }
}

/// A `filmcache plan` answered without the parser: `plan [--db DB] [--json] [--ids] WORKLIST...`,
/// the key from OMDB_API_KEY (or the busiest in the ledger), every other setting its default.
struct PlanRequest: Sendable {
    let request: FilmCacheCommand.Plan.Request

    /// The request `arguments` (without the program's name) make, or `nil` when the parser is to
    /// read them.
    init?(_ arguments: [String]) {
        guard
            let plain = PlainArguments(
                arguments, command: "plan", options: ["--db"], flags: ["--json", "--ids"], positionals: .max),
            !plain.positionals.isEmpty
        else { return nil }
        request = FilmCacheCommand.Plan.Request(
            databasePath: plain.option("--db"), worklists: plain.positionals, job: nil, format: .auto,
            settings: PlanOptions.settings(job: nil, given: SettingValues()), sources: [], apiKeyFile: nil,
            json: plain.flags.contains("--json"), ids: plain.flags.contains("--ids"))
    }

    /// Prints the plan as the parsed command does with the same defaults.
    func run() async throws {
        try await FilmCacheCommand.Plan.report(request, logger: CommonOptions.makeLogger(level: .notice, format: nil))
    }
}
