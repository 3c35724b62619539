/// Every key a job file may set, named as it is written (snake_case).
///
/// docs/JOBS.md documents each one; a test keeps the two in step.
public enum JobKey: String, Sendable, CaseIterable, Hashable {
    /// Worklist files; relative paths are resolved against the job file's directory.
    case worklists
    /// The cache database: a file, or a PostgreSQL URL.
    case db
    /// A file holding the PostgreSQL password.
    case dbPasswordFile = "db_password_file"
    /// A file holding the API key.
    case apiKeyFile = "api_key_file"
    /// The environment variable holding the API key.
    case apiKeyEnv = "api_key_env"
    /// OMDb's endpoint, or a stand-in's.
    case baseURL = "base_url"
    /// Requests per second.
    case rate
    /// Requests allowed at once above the rate.
    case burst
    /// Concurrent requests.
    case maxInFlight = "max_in_flight"
    /// OMDb's daily limit for the key.
    case dailyLimit = "daily_limit"
    /// Percent of the daily limit kept back.
    case reserve
    /// Where the quota day starts.
    case quotaTimezone = "quota_timezone"
    /// Days a cached title stays fresh.
    case ttlDays = "ttl_days"
    /// Days a recent title stays fresh.
    case recentTTLDays = "recent_ttl_days"
    /// Days after release a title counts as recent.
    case recentWindowDays = "recent_window_days"
    /// Days an old title stays fresh.
    case oldTTLDays = "old_ttl_days"
    /// Years after release a title counts as old.
    case oldAfterYears = "old_after_years"
    /// Days a not-found answer stands.
    case notFoundTTLDays = "not_found_ttl_days"
    /// Days OMDb's not-found answer for a title stands.
    case titleNotFoundTTLDays = "title_not_found_ttl_days"
    /// How long a run may take before it stops cleanly.
    case maxRuntime = "max_runtime"
    /// On a cache several warms share: how long claimed IDs stay a run's without a renewal.
    case claimLease = "claim_lease"
    /// How worklist files are read.
    case worklistFormat = "worklist_format"
    /// Where to write Prometheus metrics.
    case metricsFile = "metrics_file"
    /// How log lines are written.
    case logFormat = "log_format"
    /// How long one request may take.
    case timeout
    /// How long to wait for a connection.
    case connectTimeout = "connect_timeout"
    /// Tries per ID in one run.
    case maxAttempts = "max_attempts"
    /// The first retry's wait ceiling.
    case retryBase = "retry_base"
    /// The largest retry wait.
    case retryCap = "retry_cap"
    /// Failures in a row that pause new work.
    case breakerPauseAfter = "breaker_pause_after"
    /// Failures in a row that end the run.
    case breakerStopAfter = "breaker_stop_after"
    /// How long new work pauses.
    case breakerCoolDown = "breaker_cool_down"
    /// The directory posters are stored in; `warm` then also fetches the posters of the films it fetched.
    case posterStore = "poster_store"
    /// Poster requests per second (image hosts are not metered by OMDb's quota); 0 for no limit.
    case posterRate = "poster_rate"
    /// Poster transfers at once.
    case posterMaxInFlight = "poster_max_in_flight"
    /// The largest poster accepted, in bytes.
    case posterMaxBytes = "poster_max_bytes"
    /// Days after which a stored poster is revalidated (a 304 costs no bytes).
    case posterRevalidateDays = "poster_revalidate_days"
    /// Days before a poster that is gone (404) is asked for again.
    case posterGoneRetryDays = "poster_gone_retry_days"
    /// `serve`: hours a stored `t=`, `s=` or `Season=` answer that found something is served.
    case answerTTLHours = "answer_ttl_hours"
    /// `serve`: hours a stored negative answer is served.
    case negativeTTLHours = "negative_ttl_hours"
    /// `serve`: how long a request waits for OMDb before it gets a stale answer or an error.
    case requestTimeout = "request_timeout"
    /// `serve`: how long a client has to send a request's line and headers.
    case requestHeadTimeout = "request_head_timeout"
    /// `serve`: threads that read connections and answer from memory.
    case ioThreads = "io_threads"
    /// `warm`: time between progress log lines when standard error is not a terminal.
    case progressInterval = "progress_interval"
    /// Poster hosts that may be on internal addresses (a LAN image server); every other is refused there.
    case posterAllowHosts = "poster_allow_hosts"
    /// Where `warm` fetches from: `omdb`, `tmdb`, or both.
    case sources
    /// A file holding the TMDb token.
    case tmdbTokenFile = "tmdb_token_file"
    /// TMDb's API base, or a stand-in's.
    case tmdbBaseURL = "tmdb_base_url"
    /// TMDb requests per second.
    case tmdbRate = "tmdb_rate"
    /// TMDb requests at once.
    case tmdbMaxInFlight = "tmdb_max_in_flight"
    /// Days a TMDb entry stays fresh when the changes feed does not name it.
    case tmdbTTLDays = "tmdb_ttl_days"
    /// Days TMDb's `/find` answer for an IMDb ID stands (a negative one too).
    case tmdbFindTTLDays = "tmdb_find_ttl_days"

    /// The worklist formats `worklist_format` accepts.
    package static let worklistFormats = ["auto", "text", "csv", "json"]

    /// The sources `sources` names.
    package static let sourceNames = ["omdb", "tmdb"]

    /// Keys that would hold the API key itself, refused with a pointer to the two safe ways.
    static let secretKeys: Set<String> = [
        "api_key", "apikey", "key", "omdb_api_key", "omdb_key", "tmdb_token", "tmdb_api_token", "tmdb_api_key",
        "tmdb_key",
    ]

    /// A known key close to the unknown `name`, for a "did you mean" hint.
    static func suggestion(for name: String) -> JobKey? {
        var snake = ""
        for character in name {
            if character.isUppercase, !snake.isEmpty { snake += "_" }
            snake += character == "-" ? "_" : character.lowercased()
        }
        if let key = JobKey(rawValue: snake) { return key }
        let close = allCases.map { ($0, editDistance(snake, $0.rawValue)) }.min { $0.1 < $1.1 }
        guard let close, close.1 <= 2 else { return nil }
        return close.0
    }

    /// Levenshtein distance, for short keys.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
