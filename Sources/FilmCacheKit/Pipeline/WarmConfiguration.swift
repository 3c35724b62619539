import Foundation

/// Everything a warm needs to know; its defaults are the settings registry's (``Setting``).
public struct WarmConfiguration: Sendable {
    /// The cache database file.
    public var databasePath: String
    /// Worklist files, read in order.
    public var worklists: [String]
    /// How to read them (`.auto`: detected from each file's content).
    public var worklistFormat: WorklistFormat = .auto
    /// OMDb's endpoint, or a stand-in's.
    public var baseURL = Setting.baseURL.default
    public var apiKey: APIKey
    /// Which cached answers are still good, and when negative answers are asked again.
    public var freshness = FreshnessPolicy()
    /// Concurrent OMDb requests.
    public var maxInFlight = Setting.maxInFlight.default
    /// OMDb's daily limit for this key.
    public var dailyLimit = Setting.dailyLimit.default
    /// Percent of the daily limit left for the apps sharing the key.
    public var reservePercent = Setting.reserve.default
    /// Requests per second (0 or less: unlimited) and the burst allowed on top.
    public var rate = Setting.rate.default
    public var burst = Setting.burst.default
    /// The time zone whose midnight starts a quota day.
    public var quotaTimeZone = Setting.quotaTimezone.default
    /// Retries of one ID within a run: exponential backoff with full jitter, `Retry-After` honoured.
    package var backoff = Backoff(
        base: Setting.retryBase.default, cap: Setting.retryCap.default, maxAttempts: Setting.maxAttempts.default,
        maxWait: .seconds(120))
    /// Pauses new work after repeated transient failures and ends the run after more.
    package var circuitBreaker = CircuitBreaker<ContinuousClock>(
        pauseAfter: Setting.breakerPauseAfter.default, stopAfter: Setting.breakerStopAfter.default,
        coolDown: Setting.breakerCoolDown.default)
    /// Films and lookups committed per transaction.
    public var batchSize = 256
    /// The longest a fetched result waits before it is committed, whatever the batch holds: a
    /// kill loses at most about two of these of paid answers.
    package var commitInterval = Duration.seconds(1)
    /// On a cache several warms share: how long IDs this run claims stay its own without a renewal
    /// (each claim renews them); a killed run's IDs go to the others once it passes.
    public var claimLease = Setting.claimLease.default
    /// How long the run may take; when it is up the run stops as if asked to (``StopReason/timeLimit``).
    public var maxRuntime: Duration?

    public init(databasePath: String, worklists: [String], apiKey: APIKey) {
        self.databasePath = databasePath
        self.worklists = worklists
        self.apiKey = apiKey
    }

    /// The day's budget: the limit and the reserve left for the apps.
    public var budget: QuotaBudget { QuotaBudget(limit: dailyLimit, reservePercent: reservePercent) }

    /// The settings a plan is made with.
    public var planSettings: PlanSettings {
        get {
            var settings = PlanSettings()
            settings.freshness = freshness
            settings.dailyLimit = dailyLimit
            settings.reservePercent = reservePercent
            settings.quotaTimeZone = quotaTimeZone
            return settings
        }
        set {
            freshness = newValue.freshness
            dailyLimit = newValue.dailyLimit
            reservePercent = newValue.reservePercent
            quotaTimeZone = newValue.quotaTimeZone
        }
    }

    /// The quota day an instant falls in.
    package func quotaDay(containing instant: Date) -> QuotaDay { QuotaDay(containing: instant, in: quotaTimeZone) }

    /// The OMDb URL of every request up to the ID, which is appended as it stands (IDs are
    /// `tt` and digits). It carries the key, so it is never logged. A run works it out once.
    var urlPrefix: String { requestPrefix + "i=" }

    /// The OMDb URL of every request up to its query (`i=…` or `t=…`), key included.
    var requestPrefix: String {
        let separator = baseURL.contains("?") ? "&" : "?"
        let key = apiKey.secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return baseURL + separator + "apikey=" + key + "&"
    }
}

/// Why a warm could not run or had to abort; the executable maps each to an exit code.
public enum WarmError: Error, CustomStringConvertible {
    case worklist(WorklistError)
    case store(StoreError)
    /// OMDb rejected the key (`Invalid API key!`, `No API key provided.`).
    case invalidKey(message: String)
    /// No request reached OMDb at all.
    case unreachable(String)

    public var description: String {
        switch self {
        case .worklist(let e): e.description
        case .store(let e): e.description
        case .invalidKey(let message):
            "OMDb rejected the API key (\(message)); check OMDB_API_KEY or the key file"
        case .unreachable(let why): "OMDb unreachable: \(why)"
        }
    }
}
