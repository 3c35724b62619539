import Foundation
import Logging
import Synchronization

/// `filmcache serve`'s way to OMDb: the fetch stage `warm` uses — rate limiter, quota ledger,
/// retries with backoff, circuit breaker, the same answer checks — kept for the life of the process.
///
/// Differences from a warm, all because a client is waiting: a breaker's pause is answered at
/// once (the request gets a stale film or an error) instead of waited out, and the breaker never
/// ends anything (after its cool-down the next miss tries again). The ledger gate is made anew
/// for each quota day, so a day whose budget is spent stays refused until its reset and no
/// longer. Calls may use the whole daily limit: the reserve a warm leaves is for app reads, and
/// these are app reads. Each call is reserved on its own (one ledger transaction a call, few
/// beside the hits): the ledger then counts exactly the calls sent, for `/quota` and the metrics.
final class ServeUpstream: Sendable {
    private let configuration: WarmConfiguration
    private let store: any QuotaLedger
    /// Times the quota gates (their blocks on its clock, their days on its wall clock).
    private let time: TimeSource
    private let stop = WarmStop()
    /// One try of the fetch stage through a gate, on the process's pacing and clock.
    private let fetchThrough: @Sendable (QuotaGate, FetchTarget) async throws -> FetchResult
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var gate: QuotaGate?
        /// The quota day whose budget is spent (or whose limit OMDb reported), if any is.
        var spentDay: QuotaDay?
        /// Calls of gates already let go.
        var earlierCalls = 0

        /// Lets the current gate go, its calls counted, and returns it (to be finished).
        mutating func takeGate() -> QuotaGate? {
            defer { gate = nil }
            earlierCalls += gate?.sent ?? 0
            return gate
        }
    }

    /// The way to OMDb `configuration` names, through `transport`, its ledger in `store`, timed by `time`.
    init(
        configuration: WarmConfiguration, store: any QuotaLedger, transport: any HTTPTransport, time: TimeSource,
        logger: Logger
    ) {
        var configuration = configuration
        configuration.circuitBreaker = CircuitBreaker(
            pauseAfter: configuration.circuitBreaker.pauseAfter, stopAfter: .max,
            coolDown: configuration.circuitBreaker.coolDown)
        self.configuration = configuration
        self.store = store
        self.time = time
        self.logger = logger
        fetchThrough = Self.fetching(
            configuration: configuration, transport: transport, clock: time.clock, now: time.wall.now, stop: stop,
            logger: logger)
        state = Mutex(State())
    }

    /// The fetch stage's one try, its pacing made once for the process on `clock` (the clock's own
    /// type, opened from the time source, is what the rate limiter and breaker run on).
    private static func fetching<C: Clock>(
        configuration: WarmConfiguration, transport: any HTTPTransport, clock: C, now: @escaping @Sendable () -> Date,
        stop: WarmStop, logger: Logger
    ) -> @Sendable (QuotaGate, FetchTarget) async throws -> FetchResult where C.Duration == Duration {
        let pacing = Pacing(configuration: configuration, clock: clock)
        let tally = WarmTally()
        return { gate, target in
            let fetcher = FilmFetcher(
                transport: transport, urlPrefix: configuration.urlPrefix, requestPrefix: configuration.requestPrefix,
                echo: configuration.apiKey.echo,
                backoff: configuration.backoff, gate: gate, pacing: pacing, stop: stop, tally: tally,
                clock: clock, now: now, logger: logger, waitsOutPauses: false)
            return try await fetcher.fetch(target)
        }
    }

    /// The fingerprint of the key calls are made with, as the ledger names it.
    var keyFingerprint: String { configuration.apiKey.fingerprint }

    /// Fetches one target. Never throws: a key OMDb rejects or a ledger that cannot be written is
    /// logged and answered as a failure.
    func fetch(_ target: FetchTarget) async -> FetchResult {
        let instant = time.now
        guard let gate = gate(at: instant) else { return .noBudget }
        let result: FetchResult
        do {
            result = try await fetchThrough(gate, target)
        } catch let error as WarmError {
            logger.error("OMDb refused the call", metadata: ["error": "\(error)"])
            return .failed("\(error)", httpStatus: 401)
        } catch {
            logger.error("the quota ledger could not be written", metadata: ["error": "\(error)"])
            return .failed("\(error)", httpStatus: nil, sent: false)
        }
        switch result {
        case .noBudget:
            markSpent(configuration.quotaDay(containing: instant))
        case .limitReached(let message):
            let at = time.now
            let day = configuration.quotaDay(containing: at)
            logger.warning("OMDb daily limit reached", metadata: ["message": "\(message)", "quota_day": "\(day)"])
            markSpent(day)
            do {
                try await store.markExhausted(
                    key: configuration.apiKey.fingerprint, day: day.key, dailyLimit: configuration.dailyLimit, at: at)
            } catch {
                logger.error("the quota ledger could not be written", metadata: ["error": "\(error)"])
            }
        default: break
        }
        return result
    }

    /// Whether the budget of the quota day holding `instant` is spent; when it is, its reset.
    func spentUntil(_ instant: Date) -> Date? {
        state.withLock { state in
            guard let day = state.spentDay, day.contains(instant) else { return nil }
            return day.nextReset
        }
    }

    /// The quota day holding `instant`.
    func quotaDay(containing instant: Date) -> QuotaDay { configuration.quotaDay(containing: instant) }

    /// Records that `day`'s budget is spent: no call until its reset.
    func markSpent(_ day: QuotaDay) {
        let old = state.withLock { state -> QuotaGate? in
            if let spent = state.spentDay, spent >= day { return nil }
            state.spentDay = day
            return state.takeGate()
        }
        if let old { Task { try? await old.finish() } }
    }

    /// Another process recorded OMDb's limit for this key on the quota day named `key`.
    func limitReachedElsewhere(on key: String) {
        let day = configuration.quotaDay(containing: time.now)
        guard day.key == key else { return }
        logger.warning("OMDb daily limit reached by another process on this key", metadata: ["quota_day": "\(key)"])
        markSpent(day)
    }

    /// Calls sent so far, every quota day of the process included.
    var calls: Int { state.withLock { $0.earlierCalls + ($0.gate?.sent ?? 0) } }

    /// The gate for calls at `instant`, made on the first call of a quota day; `nil` while the
    /// day's budget is spent.
    private func gate(at instant: Date) -> QuotaGate? {
        // Read before the lock: the key's name may still be being worked out (``APIKey/fingerprint``).
        let key = configuration.apiKey.fingerprint
        return state.withLock { state in
            if let spent = state.spentDay, spent.contains(instant) { return nil }
            if let gate = state.gate { return gate }
            let gate = QuotaGate(
                store: store, key: key, dailyLimit: configuration.dailyLimit,
                usable: configuration.dailyLimit, block: 1, growth: 1, time: time,
                quotaDay: { [configuration] in configuration.quotaDay(containing: $0) })
            state.gate = gate
            return gate
        }
    }

    /// Ends every wait of calls in progress and gives unsent reservations back to the ledger.
    func finish() async {
        _ = stop.request(.interrupted)
        let gate = state.withLock { $0.takeGate() }
        try? await gate?.finish()
    }
}
