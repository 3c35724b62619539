/// What a warm did, as printed at the end and stored in the run history.
public struct WarmSummary: Sendable, Equatable, Codable {
    /// Distinct worklist IDs.
    public var considered = 0
    /// Skipped because the cached film is still fresh.
    public var fresh = 0
    /// Films fetched and stored.
    public var fetched = 0
    /// IDs OMDb does not know, recorded as such.
    public var notFound = 0
    /// IDs that failed this run (recorded with a retry time).
    public var failed = 0
    /// Of `fetched`: films asked for by title (`t=`), their titles now in the title index.
    package var titlesResolved = 0
    /// Of `notFound`: titles OMDb found no film for, recorded in the title index as such.
    package var titlesNotFound = 0
    /// Worklist titles the title index answered without a call.
    package var titlesKnown = 0
    /// Planned but not fetched: the budget, the limit, a stop request or the time limit ended the run first.
    public var deferred = 0
    /// IDs not cached when the run planned (negative answers due again included).
    public var missing = 0
    /// IDs cached but past their TTL when the run planned.
    public var stale = 0
    /// Not-found or failed IDs whose recheck time has not come.
    package var awaitingRecheck = 0
    /// OMDb calls made (retries included), each counted in the ledger before it was sent.
    public var calls = 0
    /// OMDb calls by what each came to; they add up to `calls`.
    package var callsByOutcome: [CallOutcome: Int] = [:]
    /// Worklist lines that named no ID.
    package var skippedLines = 0
    /// Fields that could not be read in fetched films.
    package var normalizationWarnings = 0
    /// Why the run ended early, if it did.
    public var stopReason: StopReason?
    /// What the server answered when the run stopped as ``StopReason/notOMDb``, or why OMDb could
    /// not be reached for ``StopReason/unreachable``.
    public var stopDetail: String?
    /// What TMDb's part of the run did, when the warm read TMDb.
    public var tmdb: TMDbWarmSummary?

    /// Whether the run got no definite answer at all while it tried at least one ID: it must not exit 0.
    public var nothingSucceeded: Bool { fetched == 0 && notFound == 0 && failed > 0 }

    public init() {}
}

/// Why a warm stopped before its plan was done; the rest is picked up next run.
public enum StopReason: String, Sendable, Equatable, Codable {
    /// Today's usable calls (limit minus reserve) are spent.
    case budgetSpent = "budget-spent"
    /// OMDb said "limit reached".
    case limitReached = "limit-reached"
    /// Too many transient failures in a row.
    case tooManyFailures = "too-many-failures"
    /// Asked to stop (SIGINT or SIGTERM): calls in flight finished and were stored.
    case interrupted = "interrupted"
    /// The run's time limit was up: calls in flight finished and were stored.
    case timeLimit = "time-limit"
    /// The base URL answers with something that is not OMDb (HTML, redirects, bare 403/404):
    /// a run of such answers in a row ended the run.
    case notOMDb = "not-omdb"
    /// No connection to OMDb could be opened; the calls that never left were given back.
    case unreachable = "unreachable"
}
