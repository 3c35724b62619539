import Foundation

/// A job: which worklists to warm into which database, with what key, rate, budget and freshness.
///
/// Written in TOML, or in JSON when the file starts with `{`; the keys are ``JobKey``'s and
/// docs/JOBS.md documents them. Every value is optional: the command line overrides what the
/// job gives, and the built-in defaults fill in the rest. The API key itself is never in a job
/// file, only where to find it (`api_key_file` or `api_key_env`).
public struct JobFile: Sendable, Equatable {
    /// The job file as named on the command line.
    public var path: String
    /// The settings the job gives, by key; a key it does not name is absent.
    public var settings = SettingValues()
    /// The line each key was given on, for messages about its value found later.
    public var lines: [JobKey: Int] = [:]

    /// Worklist files, absolute (relative ones are resolved against the job file's directory).
    public var worklists: [String]? { settings[.worklists] }
    /// The cache database: a file, absolute, or a PostgreSQL URL as written.
    public var databasePath: String? { settings[.db] }
    /// A file holding the PostgreSQL password, absolute.
    public var databasePasswordFile: String? { settings[.dbPasswordFile] }
    /// How long IDs a warm claims on a shared cache stay its own without a renewal.
    public var claimLease: Duration? { settings[.claimLease] }
    /// A file holding the API key, absolute.
    public var apiKeyFile: String? { settings[.apiKeyFile] }
    /// The environment variable holding the API key, in place of `OMDB_API_KEY`.
    package var apiKeyVariable: String? { settings[.apiKeyEnv] }
    /// The poster store's directory, absolute.
    public var posterStore: String? { settings[.posterStore] }
    /// Time between progress log lines when standard error is not a terminal.
    public var progressInterval: Duration? { settings[.progressInterval] }
    /// How long a run may take before it stops cleanly.
    public var maxRuntime: Duration? { settings[.maxRuntime] }
    /// How worklist files are read: one of ``JobKey/worklistFormats``.
    public var worklistFormat: String? { settings[.worklistFormat] }
    /// Where to write the run's Prometheus metrics (textfile collector format), absolute.
    public var metricsFile: String? { settings[.metricsFile] }
    /// How log lines are written, as the `--log-format` flag takes it.
    public var logFormat: String? { settings[.logFormat] }

    /// An empty job for `path`: it gives nothing, so every default stands.
    public init(path: String) {
        self.path = path
    }

    /// Reads and checks the job file at `path`; `${NAME}` in its strings is replaced from `environment`.
    public static func load(path: String, environment: [String: String]) throws(JobFileError) -> JobFile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw JobFileError(path: path, line: nil, "cannot read it: \(FileReadFailure.reason(error))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw JobFileError(path: path, line: nil, "not UTF-8 text")
        }
        return try parse(text, path: path, environment: environment)
    }

    /// Checks the job text read from `path` (which gives the directory relative paths start from).
    public static func parse(_ text: String, path: String, environment: [String: String] = [:]) throws(JobFileError)
        -> JobFile
    {
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        let isJSON = body.first { !$0.isWhitespace } == "{"
        let entries = try isJSON ? JSONJobReader.entries(body, path: path) : TOMLJobReader.entries(body, path: path)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
        var job = JobFile(path: path)
        var issues: [JobFileError.Issue] = []
        for entry in entries {
            let reader = JobValueReader(entry: entry, directory: directory, environment: environment)
            do {
                try job.set(entry.key, from: reader)
            } catch {
                issues.append(error)
            }
        }
        issues += job.conflicts()
        guard issues.isEmpty else {
            throw JobFileError(path: path, issues: issues.sorted { ($0.line ?? 0) < ($1.line ?? 0) })
        }
        return job
    }

    /// Where `key` was given, as `PATH:LINE`, for messages about its value.
    public func location(of key: JobKey) -> String {
        lines[key].map { "\(path):\($0)" } ?? path
    }

    /// Reads the API key the job names: its file, else its variable, else `OMDB_API_KEY`.
    ///
    /// A `file` from the command line wins over the job's file and variable.
    public func apiKey(environment: [String: String], file: String? = nil) throws(ConfigurationError) -> APIKey {
        try APIKey.load(
            environment: environment, variable: apiKeyVariable ?? APIKey.variable, file: file ?? apiKeyFile)
    }
}
