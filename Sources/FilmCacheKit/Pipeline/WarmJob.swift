import Foundation
import Logging
import Synchronization

/// One warm: read worklists, plan, fetch what is missing or stale, normalize, store, summarize.
public struct WarmJob: Sendable {
    public var configuration: WarmConfiguration
    private let store: CacheStore
    private let transport: any HTTPTransport
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// Stops the run from outside (the executable's signal handling); a stop requested before
    /// the run starts stops it before its first call.
    public var stop = WarmStop()
    /// Where progress goes while the job fetches; `nil` reports nothing.
    public var progress: (any ProgressSink)?
    /// Measures the time limit and the progress interval; tests inject a manual clock.
    public var clock: any Clock<Duration> = ContinuousClock()

    /// A job over `store`, fetching through `transport`; `now` is the wall clock (injectable for tests).
    public init(
        configuration: WarmConfiguration, store: CacheStore, transport: any HTTPTransport,
        now: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.configuration = configuration
        self.store = store
        self.transport = transport
        self.now = now
        self.logger = logger
    }

    /// Runs the job to the end of its plan, or until the budget, OMDb's limit, ``stop`` or
    /// ``WarmConfiguration/maxRuntime`` ends it.
    public func run() async throws(WarmError) -> WarmSummary {
        // A stop of this run only: the time limit must not stop later runs sharing `stop`.
        let runStop = stop.child()
        defer { stop.detach(runStop) }
        let outcome = await withTaskGroup(of: Void.self) { group -> Result<WarmSummary, WarmError> in
            if let limit = configuration.maxRuntime {
                group.addTask { [clock, logger] in
                    if await runStop.request(.timeLimit, after: limit, on: clock) {
                        logger.notice(
                            "time limit reached; finishing the calls in flight",
                            metadata: ["max_runtime": "\(DurationText.compact(limit))"])
                    }
                }
            }
            defer { group.cancelAll() }
            do throws(WarmError) {
                return .success(try await run(stop: runStop))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Reads the worklists, logs what they skipped and plans them at `instant`.
    ///
    /// The worklist is let go on return: the run holds only the plan's own lists.
    private func planTonight(at instant: Date) throws(WarmError) -> (NightPlan, skippedLines: Int) {
        let worklist: Worklist
        do {
            guard !configuration.worklists.isEmpty else { throw WorklistError.empty }
            worklist = try Worklist.read(paths: configuration.worklists, format: configuration.worklistFormat)
        } catch let error as WorklistError {
            throw .worklist(error)
        } catch {
            throw .worklist(.empty)
        }
        for warning in worklist.warnings { logger.warning("\(warning)") }
        do {
            let night = try NightPlan.make(
                worklist: worklist, store: store, settings: configuration.planSettings,
                keyFingerprint: configuration.apiKey.fingerprint, now: instant)
            return (night, worklist.warnings.count)
        } catch {
            throw .store(error)
        }
    }

    private func run(stop: WarmStop) async throws(WarmError) -> WarmSummary {
        let startedAt = now()
        let (night, skippedLines) = try planTonight(at: startedAt)
        let runID: Int
        do {
            runID = try store.beginRun(startedAt: startedAt, key: configuration.apiKey.fingerprint)
        } catch {
            throw .store(error)
        }
        let plan = night.plan
        var summary = WarmSummary()
        summary.considered = plan.considered
        summary.fresh = plan.fresh
        summary.missing = plan.missing
        summary.stale = plan.stale
        summary.awaitingRecheck = plan.notFoundAwaitingRecheck + plan.failedAwaitingRetry
        summary.skippedLines = skippedLines
        logger.info(
            "plan",
            metadata: [
                "considered": "\(plan.considered)", "fresh": "\(plan.fresh)", "missing": "\(plan.missing)",
                "stale": "\(plan.stale)", "upgrades": "\(plan.upgrades)", "to_fetch": "\(plan.toFetch.count)",
                "deferred": "\(plan.deferred.count)", "calls_left": "\(night.callsLeft)",
            ])
        let gate = QuotaGate(
            store: store, key: configuration.apiKey.fingerprint, day: configuration.quotaDay(containing: startedAt).key,
            dailyLimit: configuration.dailyLimit, usable: configuration.budget.usable, block: configuration.maxInFlight)
        let writer = BatchWriter(store: store, batchSize: configuration.batchSize)
        let tally = Tally()
        let queue = WorkQueue(plan.toFetch, failedBefore: plan.failedBefore, stop: stop)
        let pacing = Pacing(configuration: configuration)
        let urlPrefix = configuration.urlPrefix
        let snapshot: @Sendable (Duration) -> WarmProgress = { [callsLeft = night.callsLeft] elapsed in
            let counts = tally.counts
            let sent = gate.sent
            return WarmProgress(
                done: counts.fetched + counts.notFound + counts.failed, total: plan.toFetch.count,
                fetched: counts.fetched, notFound: counts.notFound, failed: counts.failed, calls: sent,
                quotaLeft: max(0, callsLeft - sent), elapsed: elapsed)
        }

        // Progress reports run beside the fetch until this function returns.
        let clock = clock
        async let _ = Self.report(to: progress, on: clock, snapshot)

        let failure: WarmError?
        do {
            // The first request goes alone: a rejected key or a spent limit then costs one call, not a wave.
            if let first = queue.next() {
                try await record(
                    try await fetch(first, from: urlPrefix, gate: gate, pacing: pacing, stop: stop, tally: tally),
                    for: first,
                    writer: writer, tally: tally, queue: queue, gate: gate)
            }
            try await withThrowingTaskGroup(of: Void.self) { (group) throws(any Error) -> Void in
                for _ in 0..<max(1, min(configuration.maxInFlight, plan.toFetch.count)) {
                    group.addTask {
                        do {
                            while let id = queue.next() {
                                let result = try await fetch(
                                    id, from: urlPrefix, gate: gate, pacing: pacing, stop: stop, tally: tally)
                                try await record(
                                    result, for: id, writer: writer, tally: tally, queue: queue, gate: gate)
                            }
                        } catch {
                            // The group waits for every worker before it rethrows: without this the others
                            // would spend the rest of the day's calls on results that can no longer be
                            // stored (a full disk).
                            queue.stop()
                            gate.close()
                            throw error
                        }
                    }
                }
                try await group.waitForAll()
            }
            try await writer.flush()
            failure = nil
        } catch {
            failure = Self.warmError(error)
        }
        // Whatever happened above, commit what arrived and return unsent reservations.
        try? await writer.flush()
        try? gate.finish()

        let counts = tally.counts
        summary.fetched = counts.fetched
        summary.notFound = counts.notFound
        summary.failed = counts.failed
        summary.normalizationWarnings = counts.warnings
        summary.calls = gate.sent
        summary.callsByOutcome = counts.calls
        summary.deferred = queue.remaining + plan.deferred.count
        summary.stopReason = counts.stopReason ?? (summary.deferred > 0 ? stop.reason ?? .budgetSpent : nil)
        // A run that never reached OMDb is recorded as the error it exits with, not as done.
        let unreachable = counts.fetched == 0 && counts.notFound == 0 ? pacing.unreachableOnly : nil
        let error = failure ?? unreachable.map { WarmError.unreachable($0) }
        let outcome = error.map { "error: \($0)" } ?? summary.stopReason?.rawValue ?? "done"
        try? store.finishRun(id: runID, summary: summary, finishedAt: now(), outcome: outcome)
        if let error { throw error }
        return summary
    }

    /// What one ID's fetch came to, after retries.
    enum FetchResult: Sendable {
        case film(NormalizedFilm)
        case notFound(String)
        case failed(String, httpStatus: Int?)
        case limitReached(String)
        case noBudget
        /// The circuit breaker ended the run before this ID was sent.
        case circuitOpen
        /// A stop was requested before this ID got an answer; it is left for the next run.
        case stopped
    }

    /// Hands `sink` a snapshot every `sink.interval` on `clock` until the task is cancelled.
    private static func report<C: Clock>(
        to sink: (any ProgressSink)?, on clock: C, _ snapshot: @Sendable (Duration) -> WarmProgress
    ) async where C.Duration == Duration {
        guard let sink else { return }
        let start = clock.now
        while true {
            do {
                try await clock.sleep(for: sink.interval)
            } catch {
                return
            }
            sink.report(snapshot(start.duration(to: clock.now)))
        }
    }

    /// Fetches one ID, retrying transient failures with backoff; every try is a counted call.
    ///
    /// Each try waits for the circuit breaker and the rate limiter, then takes one call from
    /// the quota gate before anything is sent. Once `stop` is requested no try is started and
    /// every wait ends at once; a request already sent is waited for.
    private func fetch(
        _ id: String, from urlPrefix: String, gate: QuotaGate, pacing: Pacing, stop: WarmStop, tally: Tally
    ) async throws
        -> FetchResult
    {
        let normalizer = FilmNormalizer()
        let clock = ContinuousClock()
        var schedule = RetrySchedule<ContinuousClock>(backoff: configuration.backoff)
        var attempt = 0
        while true {
            if stop.isRequested { return .stopped }
            switch pacing.breakerCheck(at: clock.now) {
            case .proceed: break
            case .pause(let until):
                guard try await stop.unlessStopped({ try await clock.sleep(until: until) }) else { return .stopped }
            case .stop: return .circuitOpen
            }
            if let rateGate = pacing.rateGate {
                guard try await stop.unlessStopped({ try await rateGate.acquire() }) else { return .stopped }
            }
            if stop.isRequested { return .stopped }
            guard try gate.acquire() else { return .noBudget }
            attempt += 1
            var response = HTTPResponse(status: 0, body: [])
            var failure: TransportFailure?
            do {
                response = try await transport.get(urlPrefix + id)
            } catch {
                failure = error
            }
            var normalized: NormalizedFilm?
            let body: FetchOutcome.Body
            if failure != nil {
                body = .malformed
            } else {
                switch try? normalizer.normalize(body: response.body, requestedID: id, fetchedAt: now()) {
                case .film(let film)?:
                    normalized = film
                    body = .film
                case .error(let message)?: body = .error(message)
                case nil: body = .malformed
                }
            }
            let outcome = FetchOutcome.classify(
                status: response.status, body: body, transportFailure: failure, retryAfter: response.retryAfter)
            switch outcome {
            case .film:
                pacing.recordSuccess()
                guard let normalized else { return .failed("no film body", httpStatus: 200) }
                return .film(normalized)
            case .notFound(let message):
                pacing.recordSuccess()
                return .notFound(message)
            case .limitReached(let message):
                return .limitReached(message)
            case .invalidKey(let message):
                throw WarmError.invalidKey(message: message)
            case .rejected(let status, let message):
                pacing.recordSuccess()
                return .failed("HTTP \(status)\(message.map { ": " + $0 } ?? "")", httpStatus: status)
            case .transient(let reason, let retryAfter):
                let what = Self.describe(reason, status: response.status) + " (attempt \(attempt))"
                logger.debug("transient failure", metadata: ["imdb_id": "\(id)", "error": "\(what)"])
                if case .transport(.connectFailed) = reason { pacing.noteUnreachable(what) }
                if case .stop = pacing.recordFailure(at: clock.now) { return .failed(what, httpStatus: nil) }
                let wait = retryAfter?.delay(relativeTo: now())
                switch schedule.recordFailure(at: clock.now, retryAfter: wait) {
                case .retry(let at):
                    tally.withLock { $0.calls[.retried, default: 0] += 1 }
                    guard try await stop.unlessStopped({ try await clock.sleep(until: at) }) else { return .stopped }
                case .giveUp: return .failed(what, httpStatus: response.status == 0 ? nil : response.status)
                }
            }
        }
    }

    /// Words for a transient failure, for logs and the `lookups` table.
    static func describe(_ reason: FetchOutcome.TransientReason, status: Int) -> String {
        switch reason {
        case .transport(let failure): "\(failure)"
        case .status(let code): "HTTP \(code)"
        case .serviceError(let message): "HTTP \(status): \(message)"
        case .malformedBody: "HTTP \(status): malformed body"
        }
    }

    private func record(
        _ result: FetchResult, for id: String, writer: BatchWriter, tally: Tally, queue: WorkQueue,
        gate: QuotaGate
    ) async throws {
        let at = now()
        switch result {
        case .film, .notFound: try noteFirstSuccess(at: at, tally: tally)
        case .failed, .limitReached, .noBudget, .circuitOpen, .stopped: break
        }
        switch result {
        case .film(let normalized):
            for warning in normalized.warnings { logger.warning("\(warning)") }
            try await writer.add(normalized.film)
            tally.withLock {
                $0.fetched += 1
                $0.warnings += normalized.warnings.count
                $0.calls[.film, default: 0] += 1
            }
        case .notFound(let message):
            try await writer.add(
                LookupRecord(
                    imdbID: id, status: .notFound, message: message, httpStatus: 200, attemptedAt: at,
                    nextAttemptAt: at.addingTimeInterval(configuration.freshness.notFoundTTL)))
            tally.withLock {
                $0.notFound += 1
                $0.calls[.notFound, default: 0] += 1
            }
        case .failed(let message, let status):
            logger.warning("fetch failed", metadata: ["imdb_id": "\(id)", "error": "\(message)"])
            try await writer.add(
                LookupRecord(
                    imdbID: id, status: .failed, message: message, httpStatus: status, attemptedAt: at,
                    nextAttemptAt: configuration.freshness.nextFailureAttempt(
                        after: queue.failedBefore(id) + 1, at: at)))
            tally.withLock {
                $0.failed += 1
                $0.calls[.failed, default: 0] += 1
            }
        case .limitReached(let message):
            logger.warning(
                "OMDb daily limit reached; stopping", metadata: ["imdb_id": "\(id)", "message": "\(message)"])
            gate.close()
            queue.stop()
            try store.markExhausted(
                key: configuration.apiKey.fingerprint, day: configuration.quotaDay(containing: at).key, at: at)
            tally.withLock {
                $0.stopReason = .limitReached
                $0.calls[.limit, default: 0] += 1
            }
        case .noBudget, .stopped:
            queue.stop()
        case .circuitOpen:
            queue.stop()
            tally.withLock { $0.stopReason = .tooManyFailures }
        }
    }

    /// On the run's first answer from OMDb, records it as the observed reset of an exhausted earlier day.
    private func noteFirstSuccess(at instant: Date, tally: Tally) throws(StoreError) {
        let first = tally.withLock { counts -> Bool in
            defer { counts.answered = true }
            return !counts.answered
        }
        guard first else { return }
        try store.recordResetObserved(
            key: configuration.apiKey.fingerprint, before: configuration.quotaDay(containing: instant).key, at: instant)
    }

    /// Maps whatever a worker threw onto the run's error vocabulary.
    private static func warmError(_ error: any Error) -> WarmError {
        switch error {
        case let error as WarmError: error
        case let error as StoreError: .store(error)
        default: .unreachable("\(error)")
        }
    }

    /// Per-run counters shared by the workers.
    private final class Tally: Sendable {
        private let state = Mutex(Counts())

        func withLock<T: Sendable>(_ body: (inout Counts) -> T) -> T { state.withLock { body(&$0) } }

        var counts: Counts { state.withLock { $0 } }
    }

    private struct Counts {
        var fetched = 0
        var notFound = 0
        var failed = 0
        var warnings = 0
        var calls: [CallOutcome: Int] = [:]
        var stopReason: StopReason?
        var answered = false
    }
}

/// The IDs still to fetch, shared by the fetch workers.
final class WorkQueue: Sendable {
    private let state: Mutex<State>

    private struct State {
        var ids: [String]
        var failedBefore: [String: Int]
        var next = 0
        var returned = 0
        var closed = false
    }

    private let stopToken: WarmStop?

    /// A queue over `ids`; once `stop` is requested it hands out nothing more.
    init(_ ids: [String], failedBefore: [String: Int] = [:], stop: WarmStop? = nil) {
        state = Mutex(State(ids: ids, failedBefore: failedBefore))
        stopToken = stop
    }

    /// Runs in a row that failed for `id` before this one.
    func failedBefore(_ id: String) -> Int { state.withLock { $0.failedBefore[id] ?? 0 } }

    /// The next ID, or `nil` when all are taken, the queue was closed, or a stop was requested.
    func next() -> String? {
        if stopToken?.isRequested == true { return nil }
        return state.withLock { s in
            guard !s.closed, s.next < s.ids.count else { return nil }
            defer { s.next += 1 }
            return s.ids[s.next]
        }
    }

    /// Hands out nothing more; the ID the caller holds counts as not done.
    func stop() {
        state.withLock {
            $0.closed = true
            $0.returned += 1
        }
    }

    /// IDs never taken plus those held when the queue stopped.
    var remaining: Int { state.withLock { $0.ids.count - $0.next + $0.returned } }
}
