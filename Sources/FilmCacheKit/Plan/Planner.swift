import Foundation

/// Decides what a run fetches: what is missing or stale, in priority order, cut to the budget.
public struct Planner: Sendable {
    /// Which answers are still good.
    public var freshness: FreshnessPolicy
    /// The normalizer version rows must carry to count as current.
    public var currentDataVersion: Int

    public init(freshness: FreshnessPolicy = FreshnessPolicy(), currentDataVersion: Int = FilmNormalizer.dataVersion) {
        self.freshness = freshness
        self.currentDataVersion = currentDataVersion
    }

    /// Plans from the cache states of the worklist IDs (one state per ID, in worklist order).
    ///
    /// Order: missing films first (IDs named by more worklists first, then worklist order);
    /// then stale rows by how overdue they are (age over TTL) times how many worklists name
    /// them; then rows made by an older normalizer. Within each kind, what apps asked for
    /// (`requests`: the ``AnswerCache`` demand by ID) goes first, by ``weight(named:requests:)``;
    /// no number of requests moves an ID out of its kind. Negative answers wait for their
    /// `next_attempt_at`. With a `budget` (calls left today), the rest is deferred.
    ///
    /// This holds every state in memory; each backend's `plan(_:planner:now:budget:)` makes the same
    /// plan for a worklist with the cache database doing the holding and the sorting.
    public func plan(
        _ states: [CachedState], demand: [String: Int] = [:], requests: [String: Int] = [:], now: Date,
        budget: Int? = nil
    ) -> Plan {
        var plan = Plan()
        var due: [(id: String, rank: DueRank)] = []
        for (position, state) in states.enumerated() {
            let placement = place(
                state, demand: demand[state.imdbID] ?? 1, requests: requests[state.imdbID] ?? 0, position: position,
                now: now)
            plan.count(placement)
            if case .due(let rank) = placement { due.append((state.imdbID, rank)) }
        }
        due.sort { $0.rank.comesBefore($1.rank) }
        for (id, rank) in due {
            plan.schedule(.id(id), failedBefore: rank.failedBefore, requests: rank.requests, budget: budget)
        }
        return plan
    }

    /// Where the ID of `state` stands at `now`, named by `demand` worklists and asked for `requests`
    /// times by apps, the `position`th distinct ID.
    ///
    /// The one rule behind every plan: a film row is judged by the freshness policy, a
    /// negative answer waits for its `next_attempt_at` (unless a refresh is forced), and anything
    /// else is missing.
    public func place(_ state: CachedState, demand: Int, requests: Int = 0, position: Int, now: Date) -> Placement {
        let weight = Self.weight(named: demand, requests: requests)
        let requests = max(requests, 0)
        if let fetchedAt = state.fetchedAt {
            switch freshness.judge(
                fetchedAt: fetchedAt, dataVersion: state.dataVersion ?? 0,
                title: state.age ?? TitleAge(releasedAt: nil, isRunningSeries: false), at: now,
                currentDataVersion: currentDataVersion)
            {
            case .stale(let overdue):
                return .due(DueRank(kind: .stale, score: overdue * weight, position: position, requests: requests))
            case .upgrade: return .due(DueRank(kind: .upgrade, score: weight, position: position, requests: requests))
            case .fresh: return .fresh
            }
        }
        if let status = state.lookupStatus, let next = state.nextAttemptAt, next > now, freshness.refreshBefore == nil {
            return status == .notFound ? .notFoundAwaitingRecheck : .failedAwaitingRetry
        }
        let failedBefore = state.lookupStatus == .failed ? state.lookupAttempts ?? 1 : nil
        return .due(
            DueRank(kind: .missing, score: weight, position: position, failedBefore: failedBefore, requests: requests))
    }

    /// How much an ID weighs within its kind: the worklists naming it (at least one) times one more
    /// than the requests apps made for it. Monotone in both, so a film apps read more, or more lists
    /// name, is never fetched after one read and named less; one no app asked for weighs as before.
    public static func weight(named: Int, requests: Int) -> Double {
        Double(max(named, 1)) * (1 + Double(max(requests, 0)))
    }

    /// Where one worklist ID stands tonight.
    public enum Placement: Sendable, Equatable {
        /// To fetch, at this rank.
        case due(DueRank)
        case fresh
        case notFoundAwaitingRecheck
        case failedAwaitingRetry
    }
}

/// Why a due ID is fetched and how urgently: kinds in order, then higher score, then earlier position.
public struct DueRank: Sendable, Equatable {
    /// Why the ID is due; missing IDs go before stale rows, stale rows before upgrades.
    public enum Kind: Int, Sendable, Comparable {
        case missing = 0
        case stale = 1
        case upgrade = 2

        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    public var kind: Kind
    /// ``Planner/weight(named:requests:)`` for missing IDs and upgrades; (age / TTL) × that weight for
    /// stale rows.
    public var score: Double
    /// Where the ID first appears among the worklists' distinct IDs (entries, for the database plan).
    public var position: Int
    /// For an ID whose earlier runs failed: how many runs failed.
    public var failedBefore: Int?
    /// How often apps asked for the ID (its demand); already in `score`, kept for the report.
    public var requests: Int

    public init(kind: Kind, score: Double, position: Int, failedBefore: Int? = nil, requests: Int = 0) {
        self.kind = kind
        self.score = score
        self.position = position
        self.failedBefore = failedBefore
        self.requests = requests
    }

    /// Whether this ID is fetched before `other`.
    ///
    /// The database plan sorts by the same keys: `ORDER BY kind, score DESC, position`.
    public func comesBefore(_ other: DueRank) -> Bool {
        if kind != other.kind { return kind < other.kind }
        if score != other.score { return score > other.score }
        return position < other.position
    }
}

/// One call's worth of work: an ID to fetch with `i=`, a title to resolve with `t=`, or (for
/// `filmcache serve`) any other OMDb query, whose answer is kept as OMDb sent it.
public enum FetchTarget: Sendable, Equatable, CustomStringConvertible {
    case id(String)
    indirect case title(TitleEntry)
    /// The query part of an OMDb request after the key, percent-encoded (`s=heat&page=2`), and
    /// what OMDb's positive answer to it looks like.
    case query(String, shape: AnswerShape)

    /// The ID, for an ID.
    public var imdbID: String? {
        if case .id(let id) = self { id } else { nil }
    }

    /// The title entry, for a title.
    public var title: TitleEntry? {
        if case .title(let entry) = self { entry } else { nil }
    }

    /// What a run claims when it is about to fetch this target (``WorkClaims``): the ID, or the
    /// title's ``TitleKey/claimKey``.
    public var claimKey: String {
        switch self {
        case .id(let id): id
        case .title(let entry): entry.query.key.claimKey
        case .query(let query, _): "q:" + query
        }
    }

    /// The ID, or the title and year as messages show them.
    public var description: String {
        switch self {
        case .id(let id): id
        case .title(let entry): entry.query.description
        case .query(let query, _): query
        }
    }
}

/// Tonight's work and why the rest is left alone.
public struct Plan: Sendable, Equatable {
    /// IDs to fetch and titles to resolve, in the order to do them, within today's budget (8 bytes an ID).
    public private(set) var scheduled = FetchTargets()
    /// IDs and titles due but beyond today's budget, in the order they would follow.
    public private(set) var postponed = FetchTargets()
    /// IDs to fetch, in the order to fetch them, within today's budget.
    package var toFetch: [String] { scheduled.compactMap(\.imdbID) }
    /// IDs due but beyond today's budget, in the order they would follow.
    public var deferred: [String] { postponed.compactMap(\.imdbID) }
    /// Titles to resolve within today's budget, in the order to ask.
    package var titlesToResolve: [TitleEntry] { scheduled.compactMap(\.title) }
    /// Titles to resolve beyond today's budget.
    package var titlesDeferred: [TitleEntry] { postponed.compactMap(\.title) }
    /// Distinct worklist IDs, titles the index answers counted as their IDs.
    public var considered = 0
    /// Cached, within their TTL and made by the current normalizer.
    public var fresh = 0
    /// Not cached (including not-found and failed IDs whose wait is over).
    public var missing = 0
    /// Cached but past their TTL.
    public var stale = 0
    /// Fresh but made by an older normalizer.
    package var upgrades = 0
    package var notFoundAwaitingRecheck = 0
    package var failedAwaitingRetry = 0
    /// For IDs to fetch whose earlier runs failed: how many runs failed (sets the next backoff).
    public var failedBefore: [String: Int] = [:]
    /// Due IDs (to fetch tonight or deferred) that apps asked for, with how often (their demand).
    public var requested: [String: Int] = [:]
    /// What the title index says of the worklists' titles.
    public var titles = TitleCounts()

    /// The worklists' distinct titles by what the title index says of them.
    public struct TitleCounts: Sendable, Equatable {
        /// Distinct titles (normalized title, year and type) the worklists name.
        public var distinct = 0
        /// Titles the index answers with an ID: planned as that ID, with no call to resolve them.
        public var known = 0
        /// Titles OMDb did not find, waiting for their recheck.
        public var notFound = 0
        /// Titles to ask OMDb for (`t=`), one call each, tonight or later.
        package var toResolve = 0

        public init() {}
    }

    public init() {}

    /// Counts one worklist ID where `placement` puts it.
    public mutating func count(_ placement: Planner.Placement) {
        considered += 1
        switch placement {
        case .due(let rank):
            switch rank.kind {
            case .missing: missing += 1
            case .stale: stale += 1
            case .upgrade: upgrades += 1
            }
        case .fresh: fresh += 1
        case .notFoundAwaitingRecheck: notFoundAwaitingRecheck += 1
        case .failedAwaitingRetry: failedAwaitingRetry += 1
        }
    }

    /// Adds the next due ID or title in rank order: to ``scheduled`` while `budget` allows, else to ``postponed``;
    /// an ID apps asked for `requests` times is also counted in ``requested``.
    public mutating func schedule(_ target: FetchTarget, failedBefore: Int?, requests: Int = 0, budget: Int?) {
        if requests > 0, let id = target.imdbID { requested[id] = requests }
        if let budget, scheduled.count >= max(budget, 0) {
            postponed.append(target)
            return
        }
        scheduled.append(target)
        if let failedBefore, let id = target.imdbID { self.failedBefore[id] = failedBefore }
    }

    /// Keeps the first `budget` targets of ``scheduled`` and defers the rest, ahead of those already
    /// deferred: the plan scheduling with `budget` from the start would have made.
    public mutating func cut(to budget: Int?) {
        guard let budget, scheduled.count > max(budget, 0) else { return }
        let kept = max(budget, 0)
        var deferred = FetchTargets()
        for target in scheduled[kept...] {
            deferred.append(target)
            if let id = target.imdbID { failedBefore[id] = nil }
        }
        for target in postponed { deferred.append(target) }
        postponed = deferred
        scheduled = FetchTargets(scheduled.prefix(kept))
    }

    /// Every ID and title due, within the budget or not.
    public var due: Int { scheduled.count + postponed.count }

    /// The `limit` due IDs apps asked for most, most first (ties by ID, as ``AnswerCache/mostRequested(limit:)``).
    public func mostRequested(limit: Int) -> [(imdbID: String, requests: Int)] {
        requested.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(max(limit, 0))
            .map { (imdbID: $0.key, requests: $0.value) }
    }

    /// Days until the deferred backlog is fetched at `callsPerDay`, counting today's share as done.
    ///
    /// `nil` when nothing is deferred; `Int.max` when no calls are available at all.
    public func daysToClear(callsPerDay: Int) -> Int? {
        guard !postponed.isEmpty else { return nil }
        guard callsPerDay > 0 else { return Int.max }
        return (postponed.count + callsPerDay - 1) / callsPerDay
    }
}
