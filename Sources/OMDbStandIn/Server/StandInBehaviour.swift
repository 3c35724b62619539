import Foundation

/// The knobs that shape answers and may change while the server runs.
///
/// Set at start through `StandInConfiguration` (the executable's flags) and at runtime through
/// `OMDbStandInServer.updateBehaviour(_:)` or `POST /__standin/faults` with the flag names as query
/// parameters: `fault-rate`, `faults`, `seed`, `latency-ms`, `limit-after`, `daily-limit`
/// (`none` clears the last two), `posters` (`on`/`off`), `poster-version`, `poster-fault-rate`, `poster-faults`,
/// `tmdb-rate-limit` (`none` clears it), `tmdb-retry-after`, `tmdb-changes-page-size`.
public struct StandInBehaviour: Sendable, Equatable, Codable {
    /// Requests per accepted key per quota day; request `dailyLimit + 1` gets `Request limit reached!`.
    /// `nil` means unlimited.
    public var dailyLimit: Int?
    /// After this many OMDb requests in total (since start or the last reset) every key gets
    /// `Request limit reached!`, as if the quota ran out mid-run. `nil` disables it.
    public var limitAfter: Int?
    /// The fraction (0…1) of accepted-key requests answered with a fault.
    public var faultRate: Double
    /// The faults drawn from when a request is faulted; empty disables faults.
    public var faults: [FaultKind]
    /// The seed of the fault generator; the same seed and request order give the same faults.
    public var seed: UInt64
    /// Milliseconds added before every OMDb answer (control endpoints answer at once).
    public var latencyMilliseconds: Int
    /// Whether film bodies' `Poster` URLs point at this server, which serves the images under `/posters/`.
    public var servePosters: Bool
    /// The posters' version: changing it changes every image, its `ETag` and `Last-Modified`.
    package var posterVersion: Int
    /// The fraction (0…1) of posters answered with a fault; the same posters each time.
    public var posterFaultRate: Double
    /// The faults drawn from for a faulted poster.
    public var posterFaults: [PosterFault]
    /// TMDb API requests allowed in any one second (a sliding window), from all clients together;
    /// the next gets 429 with `Retry-After`. `nil` means unlimited.
    public var tmdbRateLimit: Int?
    /// The `Retry-After` seconds of a 429 for passing `tmdbRateLimit` (at least 1).
    public var tmdbRetryAfterSeconds: Int
    /// IDs on one page of `/3/movie/changes` and `/3/tv/changes` (TMDb's is 100).
    public var tmdbChangesPageSize: Int

    /// Creates a behaviour; the defaults answer every request normally, without limits or delay.
    public init(
        dailyLimit: Int? = nil, limitAfter: Int? = nil, faultRate: Double = 0, faults: [FaultKind] = [],
        seed: UInt64 = 1, latencyMilliseconds: Int = 0, servePosters: Bool = false, posterVersion: Int = 1,
        posterFaultRate: Double = 0, posterFaults: [PosterFault] = [], tmdbRateLimit: Int? = nil,
        tmdbRetryAfterSeconds: Int = 1, tmdbChangesPageSize: Int = 100
    ) {
        self.dailyLimit = dailyLimit
        self.limitAfter = limitAfter
        self.faultRate = faultRate
        self.faults = faults
        self.seed = seed
        self.latencyMilliseconds = latencyMilliseconds
        self.servePosters = servePosters
        self.posterVersion = posterVersion
        self.posterFaultRate = posterFaultRate
        self.posterFaults = posterFaults
        self.tmdbRateLimit = tmdbRateLimit
        self.tmdbRetryAfterSeconds = max(1, tmdbRetryAfterSeconds)
        self.tmdbChangesPageSize = max(1, tmdbChangesPageSize)
    }
}

/// A fault a poster can be answered with instead of its image.
public enum PosterFault: String, Sendable, CaseIterable, Codable {
    /// HTTP 404: the image host no longer has it.
    case gone = "404"
    /// HTTP 503.
    case unavailable = "503"
    /// HTTP 200 with an HTML page labelled `text/html`.
    case html
    /// HTTP 200 with an HTML page labelled `image/jpeg`.
    case mislabelled
    /// HTTP 200 `image/jpeg` of 8 MiB.
    case huge

    /// Parses a comma-separated list such as `404,html`; `all` is every kind.
    public static func parseList(_ text: String) throws(FaultListError) -> [PosterFault] {
        try FaultListError.parse(text, all: allCases)
    }
}
