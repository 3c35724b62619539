/// What a job works on and how a run goes: worklists, database, key, time limits, output.
extension Setting where Value == [String] {
    /// Worklist files; relative paths are resolved against the job file's directory.
    public static let worklists = Setting(
        .worklists, .paths, default: nil,
        meaning: "worklist files, read in order; an ID named by several is fetched once",
        type: "array of paths (a single string is a list of one)", noDefault: "none: name them here or as arguments",
        flag: "arguments")
}

extension Setting where Value == String {
    /// The cache database: a file, or a PostgreSQL URL as written.
    public static let db = Setting(
        .db, .database, default: nil,
        meaning: "the cache database: a SQLite file (created when absent, migrated when older; its run lock is"
            + " `DB.lock`), or a PostgreSQL database several hosts share (docs/OPERATING.md, \"Several hosts\");"
            + " a URL never holds the password",
        type: "path, or a URL `postgresql://USER@HOST:PORT/DBNAME`",
        noDefault: "`filmcache.sqlite` in the working directory")

    /// A file holding the PostgreSQL password.
    package static let dbPasswordFile = Setting(
        .dbPasswordFile, .path, default: nil,
        meaning: "a file holding the PostgreSQL password (one trailing line break dropped); else `PGPASSWORD`,"
            + " then `PGPASSFILE` or `~/.pgpass`", noDefault: "—", flag: "—")

    /// A file holding the API key.
    public static let apiKeyFile = Setting(
        .apiKeyFile, .path, default: nil, help: "Read the API key from this file instead of OMDB_API_KEY.",
        meaning: "a file holding the API key (surrounding white space is trimmed)", noDefault: "—")

    /// The environment variable holding the API key.
    package static let apiKeyEnv = Setting(
        .apiKeyEnv, .variableName, default: nil,
        meaning: "the environment variable holding the key; not with `api_key_file`", noDefault: "`OMDB_API_KEY`",
        flag: "—")

    /// How worklist files are read.
    public static let worklistFormat = Setting(
        .worklistFormat, .choice(JobKey.worklistFormats), default: "auto",
        help: "Worklist format: auto (from each file's content), text, csv (IMDb export), json.",
        meaning: "how worklist files are read: detected per file, or forced", type: "`auto`, `text`, `csv` or `json`")

    /// Where to write the run's Prometheus metrics.
    public static let metricsFile = Setting(
        .metricsFile, .path, default: nil,
        help: "Write a Prometheus textfile here at the end of the run (replaced atomically).",
        meaning: "where the run writes its Prometheus metrics (node_exporter textfile collector format)")

    /// How log lines are written, as `--log-format` takes it.
    public static let logFormat = Setting(
        .logFormat, .logFormat, default: nil, meaning: "how log lines on standard error are written",
        type: "string: `human`, `logfmt` or `json`, as `--log-format` takes it; anything else is refused (exit 78)",
        noDefault: "`human` on a terminal, else `logfmt`")
}

extension Setting where Value == Duration {
    /// How long a run may take before it stops cleanly.
    public static let maxRuntime = Setting(
        .maxRuntime, .duration, default: nil, range: SettingRange(1...365 * day, unit: " seconds"),
        help: "Stop cleanly after this long (seconds, or 90s, 45m, 2h, 1h30m) and exit 75.",
        discussion: "No new request is sent; requests in flight finish (within --timeout) and are stored.",
        meaning: "how long a run may take before it stops cleanly; the rest waits for the next run",
        noDefault: "no limit")

    /// On a cache several warms share: how long claimed IDs stay a run's without a renewal.
    public static let claimLease = Setting(
        .claimLease, .duration, default: .seconds(600), range: SettingRange(1...day, unit: " seconds"),
        help: "On a PostgreSQL cache: how long IDs this warm claims stay its own without a renewal.",
        discussion: "A killed warm's IDs go to the other warms at once (its session with the server ends); the lease"
            + " holds them only for a host the server cannot reach.",
        meaning: "on a PostgreSQL cache: how long the IDs a warm has claimed stay its own without a renewal (claims"
            + " renew those past a third of it); a killed warm's IDs go to the others at once (its session ends);"
            + " the lease holds them only for a host the server cannot reach")

    /// `warm`: time between progress log lines when standard error is not a terminal.
    public static let progressInterval = Setting(
        .progressInterval, .duration, default: .seconds(30), range: SettingRange(0.1...day, unit: " seconds"),
        help: "Time between progress log lines when standard error is not a terminal ({range}).",
        meaning: "`warm`: time between progress log lines when standard error is not a terminal")
}

extension SettingKind where Value == String {
    /// The cache database: a PostgreSQL URL as written, else a file made absolute; never a name
    /// that means no file (`:memory:`).
    static let database = strings("path") { reader, _ throws(JobFileError.Issue) in
        if case .string(let text) = reader.entry.value, DatabaseName.isURL(text) { return try reader.string() }
        guard case .string(let text) = reader.entry.value, !text.isEmpty, DatabaseName.namesNoFile(text) else {
            return try reader.path()
        }
        throw reader.issue(DatabaseNameError.notAFile(text).description)
    }

    /// A log format's name, not empty (the command checks which).
    static let logFormat = strings("string") { reader, _ throws(JobFileError.Issue) in
        let format = try reader.string()
        guard !format.isEmpty else { throw reader.issue("must not be empty") }
        return format
    }
}
