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

    /// Runs the job to the end of its plan, or until the budget or OMDb's limit stops it.
    public func run() async throws(WarmError) -> WarmSummary {
        let worklist: Worklist
        do {
            guard !configuration.worklists.isEmpty else { throw WorklistError.empty }
            worklist = try Worklist.read(paths: configuration.worklists)
        } catch let error as WorklistError {
            throw .worklist(error)
        } catch {
            throw .worklist(.empty)
        }
        for warning in worklist.warnings { logger.warning("\(warning)") }

        let startedAt = now()
        let plan: Plan
        let runID: Int
        do {
            plan = Planner(ttl: configuration.ttl).plan(try store.states(of: worklist.ids), now: startedAt)
            runID = try store.beginRun(startedAt: startedAt, key: configuration.apiKey.fingerprint)
        } catch {
            throw .store(error)
        }
        var summary = WarmSummary()
        summary.considered = plan.considered
        summary.fresh = plan.fresh
        summary.awaitingRecheck = plan.notFoundAwaitingRecheck + plan.failedAwaitingRetry
        summary.skippedLines = worklist.warnings.count
        logger.info(
            "plan",
            metadata: [
                "considered": "\(plan.considered)", "fresh": "\(plan.fresh)", "missing": "\(plan.missing)",
                "stale": "\(plan.stale)", "upgrades": "\(plan.upgrades)", "to_fetch": "\(plan.toFetch.count)",
            ])

        let gate = QuotaGate(
            store: store, key: configuration.apiKey.fingerprint, day: QuotaDayKey.utc(startedAt),
            dailyLimit: configuration.dailyLimit, usable: configuration.usableCalls, block: configuration.maxInFlight)
        let writer = BatchWriter(store: store, batchSize: configuration.batchSize)
        let tally = Tally()
        let queue = WorkQueue(plan.toFetch)

        let failure: WarmError?
        do {
            // The first request goes alone: a rejected key or a spent limit then costs one call, not a wave.
            if let first = queue.next() {
                try await record(
                    try await fetch(first, gate: gate), for: first, writer: writer, tally: tally, queue: queue,
                    gate: gate)
            }
            try await withThrowingTaskGroup(of: Void.self) { (group) throws(any Error) -> Void in
                for _ in 0..<max(1, min(configuration.maxInFlight, plan.toFetch.count)) {
                    group.addTask {
                        while let id = queue.next() {
                            let result = try await fetch(id, gate: gate)
                            try await record(result, for: id, writer: writer, tally: tally, queue: queue, gate: gate)
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
        summary.deferred = queue.remaining
        summary.stopReason = counts.stopReason ?? (queue.remaining > 0 ? .budgetSpent : nil)
        let outcome = failure.map { "error: \($0)" } ?? summary.stopReason?.rawValue ?? "done"
        try? store.finishRun(id: runID, summary: summary, finishedAt: now(), outcome: outcome)
        if let failure { throw failure }
        if counts.fetched == 0 && counts.notFound == 0 && counts.failed > 0 && counts.allFailuresUnreachable {
            throw .unreachable(counts.lastFailure ?? "every request failed")
        }
        return summary
    }

    /// What one ID's fetch came to, after retries.
    enum FetchResult: Sendable {
        case film(NormalizedFilm)
        case notFound(String)
        case failed(String, httpStatus: Int?, unreachable: Bool)
        case limitReached(String)
        case noBudget
    }

    /// Fetches one ID, retrying transient failures with exponential backoff; every try is a counted call.
    private func fetch(_ id: String, gate: QuotaGate) async throws -> FetchResult {
        let normalizer = FilmNormalizer()
        var attempt = 0
        var lastFailure = FetchResult.failed("not attempted", httpStatus: nil, unreachable: false)
        while attempt < configuration.maxAttempts {
            if attempt > 0 {
                try await Task.sleep(for: configuration.retryBaseDelay * (1 << (attempt - 1)))
            }
            attempt += 1
            guard try gate.acquire() else { return attempt == 1 ? .noBudget : lastFailure }
            let response: HTTPResponse
            do {
                response = try await transport.get(configuration.url(for: id))
            } catch {
                let unreachable = if case .connectFailed = error { true } else { false }
                lastFailure = .failed("\(error) (attempt \(attempt))", httpStatus: nil, unreachable: unreachable)
                logger.debug("transient failure", metadata: ["imdb_id": "\(id)", "error": "\(error)"])
                continue
            }
            let body: OMDbBody
            do {
                body = try normalizer.decode(response.body)
            } catch {
                if response.status == 200 {
                    lastFailure = .failed("\(error) (attempt \(attempt))", httpStatus: 200, unreachable: false)
                    continue
                }
                body = .error("HTTP \(response.status)")
            }
            switch body {
            case .film(let dto):
                if response.status == 200 {
                    let raw = String(decoding: response.body, as: UTF8.self)
                    return .film(normalizer.normalize(dto, imdbID: id, raw: raw, fetchedAt: now()))
                }
                lastFailure = .failed("HTTP \(response.status) (attempt \(attempt))", httpStatus: response.status,
                    unreachable: false)
            case .error(let message):
                let lowered = message.lowercased()
                if lowered.contains("limit reached") { return .limitReached(message) }
                if response.status == 401 { throw WarmError.invalidKey(message: message) }
                if response.status == 200 && Self.notFoundMessages.contains(lowered) { return .notFound(message) }
                lastFailure = .failed(
                    "HTTP \(response.status): \(message) (attempt \(attempt))", httpStatus: response.status,
                    unreachable: false)
            }
        }
        return lastFailure
    }

    /// OMDb's answers that mean "there is no such title": permanent, cached as negative results.
    static let notFoundMessages: Set<String> = [
        "incorrect imdb id.", "movie not found!", "series not found!", "series or episode not found!",
    ]

    private func record(
        _ result: FetchResult, for id: String, writer: BatchWriter, tally: Tally, queue: WorkQueue,
        gate: QuotaGate
    ) async throws {
        let at = now()
        switch result {
        case .film(let normalized):
            for warning in normalized.warnings { logger.warning("\(warning)") }
            try await writer.add(normalized.film)
            tally.withLock {
                $0.fetched += 1
                $0.warnings += normalized.warnings.count
            }
        case .notFound(let message):
            try await writer.add(
                LookupRecord(
                    imdbID: id, status: .notFound, message: message, httpStatus: 200, attemptedAt: at,
                    nextAttemptAt: at.addingTimeInterval(configuration.notFoundTTL)))
            tally.withLock { $0.notFound += 1 }
        case .failed(let message, let status, let unreachable):
            logger.warning("fetch failed", metadata: ["imdb_id": "\(id)", "error": "\(message)"])
            try await writer.add(
                LookupRecord(
                    imdbID: id, status: .failed, message: message, httpStatus: status, attemptedAt: at,
                    nextAttemptAt: at.addingTimeInterval(configuration.failureRetryDelay)))
            tally.withLock {
                $0.failed += 1
                $0.lastFailure = message
                if !unreachable { $0.allFailuresUnreachable = false }
            }
        case .limitReached(let message):
            logger.warning("OMDb daily limit reached; stopping", metadata: ["imdb_id": "\(id)", "message": "\(message)"])
            gate.close()
            queue.putBack(id)
            queue.close()
            try store.markExhausted(key: configuration.apiKey.fingerprint, day: QuotaDayKey.utc(at), at: at)
            tally.withLock { $0.stopReason = .limitReached }
        case .noBudget:
            queue.putBack(id)
            queue.close()
        }
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
        var stopReason: StopReason?
        var allFailuresUnreachable = true
        var lastFailure: String?
    }
}

/// The IDs still to fetch, shared by the fetch workers.
final class WorkQueue: Sendable {
    private let state: Mutex<State>

    private struct State {
        var ids: [String]
        var next = 0
        var returned = 0
        var closed = false
    }

    init(_ ids: [String]) {
        state = Mutex(State(ids: ids))
    }

    /// The next ID, or `nil` when all are taken or the queue was closed.
    func next() -> String? {
        state.withLock { s in
            guard !s.closed, s.next < s.ids.count else { return nil }
            defer { s.next += 1 }
            return s.ids[s.next]
        }
    }

    /// Counts a taken ID as not done.
    func putBack(_ id: String) {
        state.withLock { $0.returned += 1 }
    }

    /// Hands out nothing more.
    func close() {
        state.withLock { $0.closed = true }
    }

    /// IDs never taken plus those put back.
    var remaining: Int { state.withLock { $0.ids.count - $0.next + $0.returned } }
}

/// The quota day as a `YYYY-MM-DD` key.
enum QuotaDayKey {
    /// The UTC calendar day of `instant`.
    static func utc(_ instant: Date) -> String { String(Timestamp.format(instant).prefix(10)) }
}
