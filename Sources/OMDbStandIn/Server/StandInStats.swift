import Foundation

/// Counters of how requests were answered, kept per key and for requests without an accepted key.
public struct StandInCounters: Sendable, Equatable, Codable {
    /// Requests that reached the OMDb endpoint `/`.
    public var requests = 0
    /// Film bodies served (200 with `"Response":"True"`).
    public var films = 0
    /// Film bodies served for an `i=` this key had already been served a film for: calls a
    /// cache should never have made (several warms sharing one plan fetching the same ID).
    package var filmsServedAgain = 0
    /// `Incorrect IMDb ID.`, `Movie not found!`, `Too many results.`, `Series or season not found!`
    /// and `Series or episode not found!` answers.
    public var notFound = 0
    /// `Something went wrong.` answers to requests naming no film (no `i`, `t` or `s`), and OMDb's
    /// `OFFSET` error to an `s=` with a `page` outside 1...100.
    package var badRequests = 0
    /// `Request limit reached!` answers (these count as requests, as on OMDb).
    public var limitReached = 0
    /// `Invalid API key!` answers.
    public var invalidKey = 0
    /// `No API key provided.` answers.
    public var missingKey = 0
    /// Injected faults of any kind.
    public var faults = 0
    /// Pages of `s=` search results served.
    package var searches = 0
    /// `Season=` episode lists served (a `Season=&Episode=` episode counts in `films`).
    public var seasons = 0

    /// Creates zeroed counters.
    public init() {}
}

/// How poster requests were answered.
public struct StandInPosterCounters: Sendable, Equatable, Codable {
    /// Requests under `/posters/`.
    public var requests = 0
    /// Images sent whole (200).
    public var images = 0
    /// 304 answers to conditional requests.
    public var notModified = 0
    /// Poster faults sent.
    public var faults = 0
    /// Body bytes sent for posters.
    public var bytes = 0

    /// Creates zeroed counters.
    public init() {}
}

/// Usage of one accepted key, named by its position in the configuration and a fingerprint, never its text.
public struct StandInKeyStats: Sendable, Equatable, Codable {
    /// The key's position in `StandInConfiguration.apiKeys`.
    public var index: Int
    /// The key's fingerprint (`StandInConfiguration.fingerprint(ofKey:)`).
    public var fingerprint: String
    /// Requests counted against this key's current quota day.
    package var usedToday: Int
    /// How this key's requests were answered.
    public var counters: StandInCounters
}

/// A snapshot of the server's counters; `GET /__standin/stats` returns it as JSON with sorted keys:
///
/// ```json
/// {"connectionsAccepted":1,"controlRequests":0,"faultsByKind":{"500":2},"totalRequests":10,
///  "unaccepted":{"badRequests":0,"faults":0,"films":0,…,"requests":1},
///  "keys":[{"counters":{…},"fingerprint":"d…(4)","index":0,"usedToday":9}]}
/// ```
public struct StandInStats: Sendable, Equatable, Codable {
    /// Requests to the OMDb endpoint `/` since start or the last reset, whatever their answer.
    public var totalRequests: Int
    /// Requests to `/__standin/…` control endpoints (never counted as OMDb requests).
    package var controlRequests: Int
    /// TCP connections accepted since start or the last reset.
    package var connectionsAccepted: Int
    /// One entry per accepted key, in configuration order.
    public var keys: [StandInKeyStats]
    /// Requests with no key or a key that is not accepted.
    public var unaccepted: StandInCounters
    /// Injected faults by `FaultKind` raw value.
    public var faultsByKind: [String: Int]
    /// Requests for poster images under `/posters/` (never counted as OMDb requests).
    public var posters: StandInPosterCounters
    /// TMDb requests: the API under `/3/` and images under `/t/p/` (never counted as OMDb requests).
    public var tmdb: TMDbStats

    /// Returns the snapshot as pretty-printed JSON with sorted keys.
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }
}
