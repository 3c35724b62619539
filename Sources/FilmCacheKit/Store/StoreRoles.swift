import Foundation

// The store seam by role: each consumer names the parts of a cache database it uses, so a test can
// hand it a backend of just those parts and a reader sees what it touches. `CacheBackend` (every
// part, and closing) is named only where a database is opened and closed: the commands.

/// What a database says of itself: its name for output, how warms share it, and its size.
public protocol StoreTraits: Sendable {
    /// The database as output may name it: a path, or a URL with no password.
    var displayName: String { get }
    /// Whether several warms may write the database at once (each claiming its share of the plan);
    /// `false` means one warm at a time, under the run lock.
    var sharesPlanBetweenWarms: Bool { get }
    /// How many batches a warm commits at once: one where a single connection writes; two where a
    /// server works on one batch while the next is on the wire or waiting for its flush to disk.
    var concurrentCommits: Int { get }
    /// The schema version of the database.
    func schemaVersion() async throws(StoreError) -> Int
    /// Bytes the cache's tables and their indexes take on a server; `nil` for a file, which is
    /// measured on disk.
    func storedBytes() async throws(StoreError) -> Int?
}

/// What a warm needs: the films it writes, the plan, the ledger, its run record and its claims.
public typealias WarmStore = StoreTraits & FilmStore & PlanStore & QuotaLedger & RunHistory & WorkClaims

/// What planning a night needs: the plan and today's ledger entry.
public typealias PlanningStore = PlanStore & QuotaLedger

/// What `filmcache serve` answers from and writes to: films, the ledger, flights and stored answers.
public typealias ServeStore = FilmStore & QuotaLedger & WorkClaims & AnswerCache

/// What `filmcache stats` reads: the census, the plan, the ledger and the database's size.
public typealias StatsStore = StoreTraits & PlanStore & QuotaLedger

/// What the quota report and the metrics file read: the ledger and the run history.
public typealias QuotaReportStore = QuotaLedger & RunHistory

/// What serve's dashboard shows: the films, the census, the quota and the most requested films.
public typealias DashboardStore = FilmStore & PlanStore & QuotaLedger & RunHistory & AnswerCache

/// What a warm of TMDb's side needs: the TMDb tables and what the store says of itself.
public typealias TMDbWarmStore = StoreTraits & TMDbStore
