import ArgumentParser
import FilmCacheKit
import Foundation

/// The `--job FILE` flag `warm` and `plan` share, and how its values meet the command line.
///
/// The job file's values come first; every flag given overrides the matching one, and
/// worklists named as arguments replace the job's list.
struct JobOptions: ParsableArguments {
    /// The job file named by `--job`.
    @Option(
        name: .customLong("job"),
        help: ArgumentHelp(
            "Read settings (db, worklists, key, pace, budget) from this job file (TOML, or JSON when it starts"
                + " with '{'); flags given override it.",
            valueName: "file"))
    var path: String?

    /// The job file, read and checked; nil without `--job`.
    ///
    /// A bad job file ends the command with exit 78 and one `job file PATH:LINE: …` line per problem.
    func load() throws -> JobFile? {
        guard let path else { return nil }
        do {
            return try JobFile.load(path: path, environment: ProcessInfo.processInfo.environment)
        } catch {
            for message in error.messages.dropLast() {
                StandardError.write("filmcache: \(message)")
            }
            throw fail(error.messages.last ?? error.description, status: ExitStatus.configuration)
        }
    }

    /// The worklists to read: those given as arguments, else the job's.
    static func worklists(arguments: [String], job: JobFile?) throws -> [String] {
        let worklists = arguments.isEmpty ? job?.worklists ?? [] : arguments
        guard !worklists.isEmpty else {
            throw ValidationError("name at least one worklist file, or a --job file that lists worklists")
        }
        return worklists
    }

    /// The API key: `--api-key-file`, else the job's `api_key_file`, else its `api_key_env`, else `OMDB_API_KEY`.
    static func apiKey(file: String?, job: JobFile?) throws(ConfigurationError) -> APIKey {
        // Without a job only `OMDB_API_KEY` is read: no dictionary of the whole environment is made.
        guard let job else { return try APIKey.load(environment: ProcessEnvironment.only(APIKey.variable), file: file) }
        return try job.apiKey(environment: ProcessInfo.processInfo.environment, file: file)
    }
}
