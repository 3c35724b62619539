import Foundation
import Logging
import Synchronization

/// How TMDb's part of a warm runs.
public struct TMDbWarmConfiguration: Sendable {
    public var endpoint: TMDbEndpoint
    /// Requests per second; 0 for no limit.
    public var rate = Setting.tmdbRate.default
    /// Requests at once.
    public var maxInFlight = Setting.tmdbMaxInFlight.default
    /// How long an entry stays fresh when the changes feed does not name it.
    public var ttl = Setting.tmdbTTLDays.default * 86_400
    /// How long `/find`'s answer stands, a negative one too.
    public var findTTL = Setting.tmdbFindTTLDays.default * 86_400
    package var backoff = Backoff(base: Setting.retryBase.default, cap: Setting.retryCap.default, maxAttempts: 4)
    package var breakerPauseAfter = Setting.breakerPauseAfter.default
    package var breakerStopAfter = Setting.breakerStopAfter.default
    package var breakerCoolDown = Setting.breakerCoolDown.default
    /// Results committed in one transaction at most.
    public var batchSize = 64
    /// The longest a result waits for its commit while more arrive.
    package var commitInterval = Duration.seconds(1)
    /// IDs planned at once: the states of a million IDs are read and planned a slice at a time.
    package var sliceSize = 10_000
    /// How long the part may take before it stops cleanly.
    public var maxRuntime: Duration?

    public init(endpoint: TMDbEndpoint) {
        self.endpoint = endpoint
    }

    /// This configuration with `maxRuntime` as its time limit.
    public func limited(to maxRuntime: Duration?) -> TMDbWarmConfiguration {
        var configuration = self
        configuration.maxRuntime = maxRuntime
        return configuration
    }

    /// The settings given (job file and flags), over the defaults.
    public mutating func apply(_ settings: SettingValues) {
        rate = settings.value(.tmdbRate)
        maxInFlight = settings.value(.tmdbMaxInFlight)
        ttl = settings.value(.tmdbTTLDays) * 86_400
        findTTL = settings.value(.tmdbFindTTLDays) * 86_400
        backoff = Backoff(
            base: settings.value(.retryBase), cap: settings.value(.retryCap), maxAttempts: settings.value(.maxAttempts))
        breakerPauseAfter = settings.value(.breakerPauseAfter)
        breakerStopAfter = settings.value(.breakerStopAfter)
        breakerCoolDown = settings.value(.breakerCoolDown)
    }
}

/// TMDb's part of a warm: reads the changes feed since the last run and marks the entries it names,
/// plans the worklist's IMDb IDs against what is stored, resolves the IDs it must through `/find`
/// (the answer stored, a negative one too), fetches each due entry's details in one call with its
/// parts appended, and stores them in batches. Its pace, pauses and breaker are its own; it has no
/// daily ledger (TMDb keeps none) but counts its calls by day.
public struct TMDbWarmJob: Sendable {
    public var configuration: TMDbWarmConfiguration
    private let store: any TMDbStore & WorkClaims
    private let transport: any HTTPRequestTransport
    private let time: TimeSource
    private let logger: Logger
    /// Stops the run from outside: no new request, those in flight finish and are stored.
    public var stop = WarmStop()

    public init(
        configuration: TMDbWarmConfiguration, store: any TMDbStore & WorkClaims, transport: any HTTPRequestTransport,
        time: TimeSource, logger: Logger
    ) {
        self.configuration = configuration
        self.store = store
        self.transport = transport
        self.time = time
        self.logger = logger
    }

    /// Runs TMDb's part for `imdbIDs` (worklist order, duplicates allowed), until its plan is done
    /// or ``stop``, the breaker, a refused token or ``TMDbWarmConfiguration/maxRuntime`` ends it.
    public func run(imdbIDs: [String]) async throws(StoreError) -> TMDbWarmSummary {
        // A stop of this run only: its time limit must not stop whatever else shares `stop`.
        let runStop = stop.child()
        defer { stop.detach(runStop) }
        let outcome = await withTaskGroup(of: Void.self) { group -> Result<TMDbWarmSummary, StoreError> in
            if let limit = configuration.maxRuntime {
                group.addTask { [clock = time.clock] in
                    _ = await runStop.request(.timeLimit, after: limit, on: clock)
                }
            }
            defer { group.cancelAll() }
            do throws(StoreError) {
                return .success(try await run(imdbIDs, stop: runStop))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private func run(_ imdbIDs: [String], stop: WarmStop) async throws(StoreError) -> TMDbWarmSummary {
        let startedAt = time.now
        let pacer = TMDbPacer(
            rate: configuration.rate, pauseAfter: configuration.breakerPauseAfter,
            stopAfter: configuration.breakerStopAfter, coolDown: configuration.breakerCoolDown, time: time)
        let caller = TMDbCaller(
            endpoint: configuration.endpoint, transport: transport, pacer: pacer, backoff: configuration.backoff,
            time: time, logger: logger)
        var summary = TMDbWarmSummary()
        let writer = TMDbWriter(
            store: store, caller: caller, batchSize: configuration.batchSize,
            commitInterval: configuration.commitInterval, time: time)
        // Results wait at most about the commit interval, also while every worker waits out a 429.
        let ticks = Task { [clock = time.clock, interval = configuration.commitInterval] in
            while (try? await clock.sleep(for: interval / 2)) != nil { try? await writer.tick() }
        }
        defer { ticks.cancel() }

        do {
            let feed = TMDbChangesFeed(caller: caller, store: store, logger: logger)
            let read = try await feed.refresh(at: startedAt, stop: stop)
            summary.feed = read.status
            summary.feedMarked = read.marked
        } catch let error as StoreError {
            throw error
        } catch let stopped as TMDbStopped {
            summary.stopDetail = stopped.reason
        } catch {
            // Cancelled: nothing more to do.
        }

        var seen = Set<String>()
        let ids = imdbIDs.filter { seen.insert($0).inserted }
        seen = []
        var start = 0
        while start < ids.count {
            let slice = Array(ids[start..<min(ids.count, start + configuration.sliceSize)])
            start += slice.count
            let states = try await store.tmdbStates(of: slice)
            let plan = TMDbPlan.make(
                states: states, now: startedAt, ttl: configuration.ttl, findTTL: configuration.findTTL)
            summary.considered += plan.considered
            summary.fresh += plan.fresh
            guard summary.stopDetail == nil, !stop.isRequested else {
                summary.deferred += plan.toResolve.count + plan.toFetch.count
                continue
            }
            let outcome = await work(
                plan, caller: caller, writer: writer, stop: stop, claims: Claims(plannedAt: startedAt))
            summary.add(outcome)
            try await writer.flush()
        }
        try await writer.flush()
        if summary.stopDetail == nil, summary.deferred > 0, let reason = stop.reason {
            summary.stopDetail = reason.rawValue
        }
        summary.calls = caller.calls
        summary.rateLimited = await pacer.rateLimited
        logger.info(
            "TMDb done",
            metadata: [
                "considered": "\(summary.considered)", "fresh": "\(summary.fresh)", "resolved": "\(summary.resolved)",
                "not_on_tmdb": "\(summary.notOnTMDb)", "fetched": "\(summary.fetched)",
                "failed": "\(summary.failed)", "calls": "\(summary.totalCalls)",
                "rate_limited": "\(summary.rateLimited)",
            ])
        return summary
    }

    /// One piece of work: an ID to resolve (then its entry fetched), or an entry to fetch.
    private enum Item: Sendable {
        case resolve(String)
        case fetch(imdbID: String, ref: TMDbRef)
    }

    /// Runs `plan` with up to `maxInFlight` workers until it is done or the run stops.
    private func work(_ plan: TMDbPlan, caller: TMDbCaller, writer: TMDbWriter, stop: WarmStop, claims: Claims) async
        -> TMDbWarmSummary
    {
        var items = plan.toResolve.map(Item.resolve)
        items += plan.toFetch.map { Item.fetch(imdbID: $0.imdbID, ref: $0.ref) }
        let queue = Locked((items: items[...], outcome: TMDbWarmSummary()))
        let changedRefs = plan.changedRefs
        let workers = max(1, min(configuration.maxInFlight, items.count))
        /// Does one item of the queue; `false` when there is none left or the run stopped.
        @Sendable func step() async -> Bool {
            guard !stop.isRequested, let item = queue.withLock({ $0.items.popFirst() }) else { return false }
            do {
                let result = try await handle(
                    item, caller: caller, writer: writer, changed: changedRefs, claims: claims)
                queue.withLock { $0.outcome.add(result) }
            } catch let stopped as TMDbStopped {
                queue.withLock {
                    $0.outcome.stopDetail = $0.outcome.stopDetail ?? stopped.reason
                    $0.outcome.deferred += 1 + $0.items.count
                    $0.items = []
                }
            } catch {
                // Cancelled, or the store failed (the run stops): the item is not done.
                queue.withLock {
                    $0.outcome.deferred += 1
                    if error is StoreError {
                        $0.outcome.stopDetail = $0.outcome.stopDetail ?? "\(error)"
                        $0.outcome.deferred += $0.items.count
                        $0.items = []
                    }
                }
            }
            return true
        }
        // The first request goes alone: a refused token or a 429 storm then meets one request, not a wave.
        guard await step() else { return queue.withLock { $0.outcome } }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask { while await step() {} }
            }
        }
        return queue.withLock { state in
            var outcome = state.outcome
            outcome.deferred += state.items.count
            return outcome
        }
    }

    /// How warms sharing a cache (PostgreSQL) keep from asking TMDb twice for one thing in a night:
    /// each request's subject is taken for the run (a flight whose lease outlasts the commit of its
    /// answer), and one another run took, or answered since the plan, is left to it.
    struct Claims: Sendable {
        /// When the run planned: an answer stored since came from another run.
        var plannedAt: Date
        /// This run's name in the flights; negative, as serve's are.
        var holder = Int.random(in: Int.min..<0)
        /// How long a subject stays taken: past the commit of its answer, so another run that takes it
        /// later finds the answer stored.
        var lease = Duration.seconds(900)
    }

    /// Whether this run may ask TMDb about `subject`: taken for it, and not answered since the plan
    /// (`answered` reads what is stored now).
    private func take(_ subject: String, _ claims: Claims, answered: () async throws(StoreError) -> Date?)
        async throws(StoreError) -> Bool
    {
        guard try await store.claimFlight("tmdb " + subject, holder: claims.holder, lease: claims.lease) else {
            return false
        }
        guard let at = try await answered() else { return true }
        return at < claims.plannedAt.storedSecond
    }

    private func handle(
        _ item: Item, caller: TMDbCaller, writer: TMDbWriter, changed: Set<TMDbRef>, claims: Claims
    ) async throws -> TMDbWarmSummary {
        var result = TMDbWarmSummary()
        let imdbID: String
        let ref: TMDbRef
        switch item {
        case .fetch(let id, let known):
            imdbID = id
            ref = known
        case .resolve(let id):
            guard
                try await take(
                    "find " + id, claims,
                    answered: { () throws(StoreError) in
                        try await store.tmdbMapping(id)?.checkedAt
                    })
            else {
                result.answeredElsewhere = 1
                return result
            }
            result.resolved = 1
            switch try await caller.get("/find/\(id)", query: [("external_source", "imdb_id")], kind: "find") {
            case .ok(let body):
                let found: TMDbRef?
                do {
                    found = try TMDbBody.found(body)
                } catch {
                    logger.warning("TMDb's /find answer unreadable", metadata: ["imdb_id": "\(id)", "why": "\(error)"])
                    result.failed = 1
                    return result
                }
                try await writer.add(mapping: TMDbMapping(imdbID: id, ref: found, checkedAt: time.now))
                guard let found else {
                    result.notOnTMDb = 1
                    return result
                }
                imdbID = id
                ref = found
            case .notFound:
                try await writer.add(mapping: TMDbMapping(imdbID: id, ref: nil, checkedAt: time.now))
                result.notOnTMDb = 1
                return result
            case .failed(let why):
                logger.warning("TMDb /find failed", metadata: ["imdb_id": "\(id)", "why": "\(why)"])
                result.failed = 1
                return result
            }
        }
        guard
            try await take(
                "\(ref)", claims,
                answered: { () throws(StoreError) in
                    try await store.tmdbFilm(ref).flatMap { $0.fetchedAt }
                })
        else {
            result.answeredElsewhere += 1
            return result
        }
        let answer = try await caller.get(
            ref.path, query: [("append_to_response", TMDbEndpoint.appendedParts)], kind: "details")
        switch answer {
        case .ok(let body):
            do {
                let film = try TMDbBody.film(body, ref: ref, fetchedAt: time.now)
                try await writer.add(film: film)
                result.fetched = 1
                if changed.contains(ref) { result.changedRefreshed = 1 }
            } catch let problem as TMDbBody.Problem {
                logger.warning(
                    "TMDb's details unreadable; the stored entry, if any, stays",
                    metadata: ["imdb_id": "\(imdbID)", "tmdb": "\(ref)", "why": "\(problem)"])
                result.failed = 1
            }
        case .notFound:
            // The entry is gone from TMDb: ask /find again once its answer's TTL passes.
            try await writer.add(mapping: TMDbMapping(imdbID: imdbID, ref: nil, checkedAt: time.now))
            result.notFound = 1
        case .failed(let why):
            logger.warning("TMDb details failed", metadata: ["tmdb": "\(ref)", "why": "\(why)"])
            result.failed = 1
        }
        return result
    }
}

/// Collects a warm's TMDb results and commits them in batches: when `batchSize` have arrived or
/// the oldest has waited `commitInterval`, and at the end; each commit also adds the calls counted
/// since the last one to the day's tally.
actor TMDbWriter {
    private let store: any TMDbStore
    private let caller: TMDbCaller
    private let batchSize: Int
    private let commitInterval: Duration
    private let time: TimeSource
    private var batch = TMDbBatch()
    private var oldest: Duration?

    init(store: any TMDbStore, caller: TMDbCaller, batchSize: Int, commitInterval: Duration, time: TimeSource) {
        self.store = store
        self.caller = caller
        self.batchSize = max(1, batchSize)
        self.commitInterval = commitInterval
        self.time = time
    }

    func add(mapping: TMDbMapping) async throws(StoreError) {
        batch.mappings.append(mapping)
        try await flushIfDue()
    }

    func add(film: TMDbFilm) async throws(StoreError) {
        batch.films.append(film)
        try await flushIfDue()
    }

    private func flushIfDue() async throws(StoreError) {
        let now = time.elapsed()
        if oldest == nil { oldest = now }
        if batch.mappings.count + batch.films.count >= batchSize || now - (oldest ?? now) >= commitInterval {
            try await flush()
        }
    }

    /// Commits what has waited its interval, if anything has.
    func tick() async throws(StoreError) {
        guard let oldest, time.elapsed() - oldest >= commitInterval else { return }
        try await flush()
    }

    /// Commits what has arrived, and the calls counted.
    func flush() async throws(StoreError) {
        let pending = batch
        batch = TMDbBatch()
        oldest = nil
        if !pending.isEmpty { _ = try await store.writeTMDb(pending) }
        let calls = caller.takeCalls()
        if !calls.isEmpty {
            try await store.countTMDbCalls(calls, day: TMDbCalendar.day(of: time.now))
        }
    }
}

/// A value behind a lock, shared by reference between tasks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}

/// TMDb's days: UTC calendar dates, as its changes feed names them.
package enum TMDbCalendar {
    /// `YYYY-MM-DD` of `instant` in UTC: the date of its stored form.
    package static func day(of instant: Date) -> String { String(Timestamp.format(instant).prefix(10)) }
}
