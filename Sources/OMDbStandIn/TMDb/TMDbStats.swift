/// Usage of one accepted TMDb token, named by its position and fingerprint, never its text.
public struct TMDbTokenStats: Sendable, Equatable, Codable {
    /// The token's position in `StandInConfiguration.tmdbTokens`.
    public var index: Int
    /// The token's fingerprint (`StandInConfiguration.fingerprint(ofKey:)`).
    public var fingerprint: String
    /// Authorized TMDb API requests made with it.
    public var requests: Int
}

/// How TMDb requests were answered; the `tmdb` object of `GET /__standin/stats`.
public struct TMDbStats: Sendable, Equatable, Codable {
    /// TMDb API requests (under `/3/`) since start or the last reset, whatever their answer; images
    /// are not counted here.
    public var requests = 0
    /// Requests by kind: `find`, `movie`, `tv`, `season`, `episode`, `changes`, `configuration`,
    /// `search`, `other` (API paths the stand-in does not serve) and `image` (under `/t/p/`).
    public var byKind: [String: Int] = [:]
    /// API answers by HTTP status (`"200"`, `"401"`, `"404"`, `"422"`, `"429"`, …), faults included.
    public var byStatus: [String: Int] = [:]
    /// API requests that arrived before the latest `Retry-After` instant announced in a 429 had
    /// passed: calls a client told to wait should not have made. Each was answered 429 itself.
    public var requestsInsideRetryAfter = 0
    /// Whether an announced `Retry-After` instant is still ahead (a request now would count above).
    public var retryAfterPending = false
    /// 401 answers: no token, or one that is not accepted.
    public var unauthorized = 0
    /// 200 answers to `/movie/{id}` and `/tv/{id}` by `movie:ID` / `tv:ID`.
    public var detailsFetches: [String: Int] = [:]
    /// 200 answers to `/find/{imdb_id}` by IMDb ID, films not on TMDb included.
    public var findFetches: [String: Int] = [:]
    /// Images served whole, by size (`w500`, `original`, …).
    public var imagesBySize: [String: Int] = [:]
    /// One entry per accepted token, in configuration order.
    public var tokens: [TMDbTokenStats] = []

    /// Zeroed counters for `fingerprints`.
    init(fingerprints: [String] = []) {
        tokens = fingerprints.enumerated().map { TMDbTokenStats(index: $0, fingerprint: $1, requests: 0) }
    }

    private enum CodingKeys: String, CodingKey {
        case requests
        case byKind = "by_kind"
        case byStatus = "by_status"
        case requestsInsideRetryAfter = "requests_inside_retry_after"
        case retryAfterPending = "retry_after_pending"
        case unauthorized
        case detailsFetches = "details_fetches"
        case findFetches = "find_fetches"
        case imagesBySize = "images_by_size"
        case tokens
    }
}
