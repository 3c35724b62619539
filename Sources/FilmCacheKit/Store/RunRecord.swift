import Foundation

/// One row of the `runs` table: what a warm did and how it ended.
public struct RunRecord: Sendable, Equatable {
    /// The row id, in start order.
    public var id: Int
    /// When the warm began.
    public var startedAt: Date
    /// When it ended; `nil` while it runs, or when it was killed before recording its end.
    public var finishedAt: Date?
    /// The key it spent, by fingerprint.
    public var keyFingerprint: String
    /// Distinct worklist IDs.
    public var considered: Int
    /// IDs skipped as fresh.
    public var fresh: Int
    /// Films fetched and stored.
    public var fetched: Int
    /// IDs OMDb did not know.
    public var notFound: Int
    /// IDs that failed this run.
    public var failed: Int
    /// OMDb calls counted in the ledger.
    public var calls: Int
    /// `done`, a stop reason (`budget-spent`, `limit-reached`, `too-many-failures`), or `error: …`; `nil` when unfinished.
    public var outcome: String?

    /// Creates a record; the store builds these from `runs` rows.
    public init(
        id: Int, startedAt: Date, finishedAt: Date?, keyFingerprint: String, considered: Int = 0, fresh: Int = 0,
        fetched: Int = 0, notFound: Int = 0, failed: Int = 0, calls: Int = 0, outcome: String?
    ) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.keyFingerprint = keyFingerprint
        self.considered = considered
        self.fresh = fresh
        self.fetched = fetched
        self.notFound = notFound
        self.failed = failed
        self.calls = calls
        self.outcome = outcome
    }

    /// Outcomes of runs that completed their work or stopped early on purpose (exit 0 or 75).
    public static let completedOutcomes: [String] =
        ["done"] + [StopReason.budgetSpent, .limitReached, .tooManyFailures].map(\.rawValue)

    /// Whether the run completed (exit 0 or 75), as opposed to failing or not finishing.
    public var completed: Bool { finishedAt != nil && outcome.map(Self.completedOutcomes.contains) == true }
}
