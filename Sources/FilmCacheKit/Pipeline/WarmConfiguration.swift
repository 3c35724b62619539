import Foundation

/// Everything a warm needs to know, from flags (and later job files).
public struct WarmConfiguration: Sendable {
    /// The cache database file.
    public var databasePath: String
    /// Worklist files, read in order.
    public var worklists: [String]
    /// OMDb's endpoint, or a stand-in's.
    public var baseURL: String = "https://www.omdbapi.com/"
    public var apiKey: APIKey
    /// How long a cached film stays fresh.
    public var ttl: TimeInterval = 30 * 86_400
    /// How long a "not found" answer stands before the ID is asked again.
    public var notFoundTTL: TimeInterval = 30 * 86_400
    /// How long a failed ID waits before a later run tries it again.
    public var failureRetryDelay: TimeInterval = 3_600
    /// Concurrent OMDb requests.
    public var maxInFlight = 8
    /// OMDb's daily limit for this key.
    public var dailyLimit = 1_000
    /// Percent of the daily limit left for the apps sharing the key.
    public var reservePercent: Double = 5
    /// Attempts per ID within one run (the first try included) for transient failures.
    public var maxAttempts = 3
    /// Delay before the first retry; doubles each attempt.
    public var retryBaseDelay: Duration = .milliseconds(250)
    /// Films and lookups committed per transaction.
    public var batchSize = 256

    public init(databasePath: String, worklists: [String], apiKey: APIKey) {
        self.databasePath = databasePath
        self.worklists = worklists
        self.apiKey = apiKey
    }

    /// Calls usable per day: the limit minus the reserve, rounded so the reserve is never eaten.
    public var usableCalls: Int {
        max(0, dailyLimit - Int((Double(dailyLimit) * reservePercent / 100).rounded(.up)))
    }

    /// The OMDb URL for one ID. It carries the key, so it is never logged.
    func url(for imdbID: String) -> String {
        let separator = baseURL.contains("?") ? "&" : "?"
        let key = apiKey.secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return baseURL + separator + "apikey=" + key + "&i=" + imdbID
    }
}

/// Why a warm could not run or had to abort; the executable maps each to an exit code.
public enum WarmError: Error, CustomStringConvertible {
    case configuration(ConfigurationError)
    case worklist(WorklistError)
    case store(StoreError)
    /// OMDb rejected the key (`Invalid API key!`, `No API key provided.`).
    case invalidKey(message: String)
    /// No request reached OMDb at all.
    case unreachable(String)

    public var description: String {
        switch self {
        case .configuration(let e): e.description
        case .worklist(let e): e.description
        case .store(let e): e.description
        case .invalidKey(let message):
            "OMDb rejected the API key (\(message)); check OMDB_API_KEY or the key file"
        case .unreachable(let why): "OMDb unreachable: \(why)"
        }
    }
}
