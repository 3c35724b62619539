import Foundation

/// How long cached answers stay good, by what they describe.
///
/// Like Radarr's and Sonarr's refresh rules: metadata of a film that came out in the last
/// months still moves (ratings, votes, box office, DVD date) and a running series gains
/// seasons, so those refresh sooner; a film released more than a decade ago rarely changes,
/// so it can wait longer and leave the quota to the rest.
public struct FreshnessPolicy: Sendable, Equatable {
    /// The TTL of everything neither recent nor old (the apps' own policy).
    public var ttl: TimeInterval = Setting.ttlDays.default * Self.day
    /// The TTL of recent releases and of series still running.
    package var recentTTL: TimeInterval = Setting.recentTTLDays.default * Self.day
    /// How long after its release a title counts as recent (about six months).
    package var recentWindow: TimeInterval = Setting.recentWindowDays.default * Self.day
    /// The TTL of titles released long ago.
    package var oldTTL: TimeInterval = Setting.oldTTLDays.default * Self.day
    /// How long after its release a title counts as old (about ten years).
    package var oldAfter: TimeInterval = 3_652 * Self.day
    /// How long a "not found" answer stands before the ID is asked again.
    package var notFoundTTL: TimeInterval = Setting.notFoundTTLDays.default * Self.day
    /// How long OMDb's "not found" for a title (`t=`) stands before the title is asked again.
    package var titleNotFoundTTL: TimeInterval = Setting.titleNotFoundTTLDays.default * Self.day
    /// The wait after an ID's first failed run; it doubles with each further failed run.
    package var failureRetryBase: TimeInterval = 3_600
    /// The longest wait between failed runs of one ID.
    package var failureRetryCap: TimeInterval = 7 * Self.day
    /// A forced refresh (`warm --refresh`): rows fetched before this instant are stale whatever
    /// their TTL, and negative answers and failures are due at once. The run's start, so a film
    /// the run (or one beside it) fetched is not fetched again.
    public var refreshBefore: Date?

    /// Seconds in a day.
    public static let day: TimeInterval = 86_400

    public init() {}

    /// A policy with one TTL for every title (no age classes).
    public static func flat(_ ttl: TimeInterval) -> FreshnessPolicy {
        var policy = FreshnessPolicy()
        policy.ttl = ttl
        policy.recentTTL = ttl
        policy.oldTTL = ttl
        return policy
    }

    /// Which TTL a title gets.
    package enum AgeClass: String, Sendable, CaseIterable {
        /// Released within `recentWindow` (or not yet), or a series still running.
        case recent
        /// Neither recent nor old, or its age is unknown.
        case standard
        /// Released more than `oldAfter` ago (a finished series: its last year).
        case old
    }

    /// The age class of a title at `now`.
    package func ageClass(of title: TitleAge, at now: Date) -> AgeClass {
        if title.isRunningSeries { return .recent }
        guard let released = title.releasedAt else { return .standard }
        let age = now.timeIntervalSince(released)
        if age < recentWindow { return .recent }
        if age > oldAfter { return .old }
        return .standard
    }

    /// The TTL of a title at `now`.
    public func ttl(of title: TitleAge, at now: Date) -> TimeInterval {
        switch ageClass(of: title, at: now) {
        case .recent: recentTTL
        case .standard: ttl
        case .old: oldTTL
        }
    }

    /// How a cached row stands at `now`: the one rule the planner and `stats` share.
    public enum Judgement: Sendable, Equatable {
        /// Within its TTL and made by the current normalizer.
        case fresh
        /// Past its TTL, by `overdue` times the TTL (1 at the TTL itself).
        case stale(overdue: Double)
        /// Within its TTL but made by an older normalizer.
        case upgrade
    }

    /// How far ahead of this host's clock an instant may lie and still be believed: another host's
    /// clock may run a little fast.
    public static let clockSkew: TimeInterval = 300

    /// Judges a row fetched at `fetchedAt` by normalizer `dataVersion`; a stale row is stale whatever its version.
    ///
    /// A row fetched more than ``clockSkew`` in the future (an import from a host with a wrong
    /// clock, a bad line) is stale: no instant can keep a film fresh beyond its TTL from now.
    public func judge(
        fetchedAt: Date, dataVersion: Int, title: TitleAge, at now: Date,
        currentDataVersion: Int = FilmNormalizer.dataVersion
    ) -> Judgement {
        let age = now.timeIntervalSince(fetchedAt)
        if age < -Self.clockSkew { return .stale(overdue: 1) }
        let ttl = ttl(of: title, at: now)
        if let refreshBefore, fetchedAt < refreshBefore { return .stale(overdue: ttl > 0 ? max(1, age / ttl) : 1) }
        if age >= ttl { return .stale(overdue: ttl > 0 ? age / ttl : .infinity) }
        return dataVersion < currentDataVersion ? .upgrade : .fresh
    }

    /// When a row fetched at `fetchedAt` stops being fresh, seen at `now`: its TTL after it was
    /// fetched, or `now` itself for a row fetched more than ``clockSkew`` in the future (as ``judge``
    /// has it stale).
    package func freshUntil(fetchedAt: Date, title: TitleAge, at now: Date) -> Date {
        if now.timeIntervalSince(fetchedAt) < -Self.clockSkew { return now }
        return fetchedAt.addingTimeInterval(ttl(of: title, at: now))
    }

    /// When an ID that has now failed `attempts` runs in a row is tried again.
    package func nextFailureAttempt(after attempts: Int, at instant: Date) -> Date {
        let doublings = min(max(attempts - 1, 0), 30)
        return instant.addingTimeInterval(min(failureRetryCap, failureRetryBase * Double(1 << doublings)))
    }
}

/// What the freshness policy needs to know about a cached title's age.
public struct TitleAge: Sendable, Equatable {
    /// The release date, or January 1 of the first year when OMDb gives no date.
    package var releasedAt: Date?
    /// A series whose run has no end year.
    package var isRunningSeries: Bool

    public init(releasedAt: Date?, isRunningSeries: Bool) {
        self.releasedAt = releasedAt
        self.isRunningSeries = isRunningSeries
    }

    /// The age facts of a `films` row: its type, years and release date as stored.
    ///
    /// A finished series is dated by its last year, so a series that ended long ago is old.
    public init(type: String?, yearStart: Int?, yearEnd: Int?, released: String?) {
        isRunningSeries = type == "series" && yearStart != nil && yearEnd == nil
        if type == "series", let yearEnd {
            releasedAt = Self.januaryFirst(yearEnd)
        } else if let released, let date = Self.isoDay(released) {
            releasedAt = date
        } else {
            releasedAt = yearStart.flatMap(Self.januaryFirst)
        }
    }

    private static func januaryFirst(_ year: Int) -> Date? {
        Timestamp.midnight(year: year, month: 1, day: 1)
    }

    /// `YYYY-MM-DD` as stored in `released`.
    private static func isoDay(_ text: String) -> Date? {
        guard let date = CalendarDate(iso: text) else { return nil }
        return Timestamp.midnight(year: date.year, month: date.month, day: date.day)
    }
}
