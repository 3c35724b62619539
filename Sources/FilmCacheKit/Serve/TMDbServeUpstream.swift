import Foundation
import Logging
import Synchronization

/// `filmcache serve`'s way to TMDb: the TMDb caller `warm` uses — the pacer (rate, `Retry-After`
/// for every call), retries with backoff, the token kept out of every message and stored body —
/// kept for the life of the process, with the cache's own TMDb token.
///
/// Differences from a warm, all because a client is waiting: a 429 is answered at once (the
/// request gets a stale answer or TMDb's 429 with `Retry-After`) while the pacer holds every
/// other call until TMDb's `Retry-After` has passed; and a refused token ends TMDb calls for
/// the process, each miss answered 503. Every call is counted in the cache, by UTC day, before
/// it is sent (over-count, never under-count).
final class TMDbServeUpstream: Sendable {
    private let endpoint: TMDbEndpoint
    private let transport: any HTTPRequestTransport
    private let pacer: TMDbPacer
    private let backoff: Backoff
    private let calls: (any TMDbStore)?
    private let time: TimeSource
    private let logger: Logger
    /// Calls sent at once, at most.
    private let slots: TMDbServeSlots
    /// Seconds a client is told to wait after TMDb failed.
    let downRetryAfter: Int
    private let state = Mutex(State())

    private struct State {
        /// TMDb's last `Retry-After` ends here; no call is sent before.
        var pausedUntil: Date?
        /// TMDb refused the token.
        var refused = false
        /// Calls sent since the start.
        var sent = 0
    }

    /// What one fetch came to.
    enum Outcome: Sendable, Equatable {
        /// TMDb's 200 body.
        case found([UInt8])
        /// TMDb's 404 body (its status code 34).
        case notFound([UInt8])
        /// TMDb answered 429; no call until `until`.
        case limited(until: Date)
        /// Every try failed; why, with the token withheld.
        case failed(String)
        /// TMDb refused the token.
        case refused
    }

    /// The way to TMDb at `endpoint` through `transport`, `rate` calls a second and `maxInFlight` at
    /// once, counting each call in `calls` when given.
    init(
        endpoint: TMDbEndpoint, transport: any HTTPRequestTransport, rate: Double, maxInFlight: Int,
        backoff: Backoff, breaker: CircuitBreaker<ContinuousClock>, calls: (any TMDbStore)?, time: TimeSource,
        logger: Logger
    ) {
        self.endpoint = endpoint
        self.transport = transport
        // The breaker pauses calls after failures in a row and never ends them: after its cool-down
        // the next miss tries again.
        pacer = TMDbPacer(
            rate: rate, pauseAfter: breaker.pauseAfter, stopAfter: .max, coolDown: breaker.coolDown, time: time)
        self.backoff = backoff
        self.calls = calls
        self.time = time
        self.logger = logger
        slots = TMDbServeSlots(maxInFlight)
        downRetryAfter = max(1, Int(breaker.coolDown.inSeconds.rounded(.up)))
    }

    /// When TMDb's last `Retry-After` ends, if it has not ended at `instant`.
    func pausedUntil(at instant: Date) -> Date? {
        state.withLock { state in
            guard let until = state.pausedUntil, until > instant else { return nil }
            return until
        }
    }

    /// Whether TMDb refused the token.
    var refused: Bool { state.withLock { $0.refused } }

    /// Calls sent since the start.
    var sent: Int { state.withLock { $0.sent } }

    /// Asks TMDb for `request`. Never throws: a refused token, a 429 and failures are outcomes.
    func fetch(_ request: TMDbServeRequest) async -> Outcome {
        if refused { return .refused }
        if let until = pausedUntil(at: time.now) { return .limited(until: until) }
        let (limits, limited) = AsyncStream<Date>.makeStream()
        let watch = Watch(base: transport, upstream: self, limited: limited)
        let caller = TMDbCaller(
            endpoint: endpoint, transport: watch, pacer: pacer, backoff: backoff, time: time, logger: logger)
        // The call and TMDb's 429 race: a 429 answers the client at once, and the call, which would
        // wait out the pause and try again, is cancelled (the pause stays, for every call).
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask { [self] in
                defer { limited.finish() }
                do {
                    return try await slots.holding { () async throws -> Outcome in
                        switch try await caller.get(request.path, query: request.upstreamQuery, kind: "serve") {
                        case .ok(let body): .found(body)
                        // The 404's body is TMDb's, checked like every answer, unless it was not one.
                        case .notFound: .notFound(watch.notFoundBody ?? TMDbServeAnswer.notFound)
                        case .failed(let why): .failed(why)
                        }
                    }
                } catch let stopped as TMDbStopped {
                    state.withLock { $0.refused = true }
                    logger.error(
                        "TMDb refused the cache's token; misses are answered 503", metadata: ["why": "\(stopped)"])
                    return .refused
                } catch {
                    return nil
                }
            }
            group.addTask {
                for await until in limits { return .limited(until: until) }
                return nil
            }
            var outcome: Outcome?
            for await next in group {
                guard let next else { continue }
                outcome = next
                break
            }
            group.cancelAll()
            limited.finish()
            return outcome ?? .failed("the call to TMDb was cancelled")
        }
    }

    /// Counts one call before it is sent; a count that cannot be written is logged, and the call goes.
    fileprivate func counting() async {
        state.withLock { $0.sent += 1 }
        guard let calls else { return }
        do {
            try await calls.countTMDbCalls(["serve": 1], day: Self.utcDay(time.now))
        } catch {
            logger.error("a TMDb call could not be counted", metadata: ["error": "\(error)"])
        }
    }

    /// TMDb answered 429: no call before `Retry-After` (1 s without one) has passed.
    fileprivate func heardLimit(_ response: HTTPResponse) -> Date {
        let now = time.now
        let wait = response.retryAfter.flatMap { RetryAfter(headerValue: $0)?.delay(relativeTo: now) } ?? .seconds(1)
        let until = now.addingTimeInterval(max(1, wait.inSeconds))
        return state.withLock { state in
            state.pausedUntil = max(state.pausedUntil ?? until, until)
            return state.pausedUntil ?? until
        }
    }

    /// The UTC day of `instant`, `YYYY-MM-DD`, as TMDb's calls are counted.
    static func utcDay(_ instant: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// One fetch's transport: counts each call before it is sent, tells the fetch of a 429 at once,
    /// and keeps a 404's body (the caller checks it like every answer before saying "not found").
    private final class Watch: HTTPRequestTransport {
        private let base: any HTTPRequestTransport
        private let upstream: TMDbServeUpstream
        private let limited: AsyncStream<Date>.Continuation
        private let lastNotFound = Mutex<[UInt8]?>(nil)

        init(base: any HTTPRequestTransport, upstream: TMDbServeUpstream, limited: AsyncStream<Date>.Continuation) {
            self.base = base
            self.upstream = upstream
            self.limited = limited
        }

        /// The body of the last 404, if the last answer was one.
        var notFoundBody: [UInt8]? { lastNotFound.withLock { $0 } }

        func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
            await upstream.counting()
            lastNotFound.withLock { $0 = nil }
            let response = try await base.send(request)
            switch response.status {
            case 404 where TMDbCaller.isJSONObject(response.body):
                lastNotFound.withLock { $0 = response.body }
            case 429:
                limited.yield(upstream.heardLimit(response))
            default:
                break
            }
            return response
        }

        func get(_ url: String) async throws(TransportFailure) -> HTTPResponse {
            try await send(HTTPRequest(url: url))
        }
    }
}

/// At most so many TMDb calls at once; the others wait their turn.
final class TMDbServeSlots: Sendable {
    private struct State {
        var free: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// `count` slots (at least one).
    init(_ count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    /// Runs `body` holding a slot.
    func holding<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await withCheckedContinuation { continuation in
            let granted = state.withLock { state in
                guard state.free > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if granted { continuation.resume() }
        }
        defer {
            let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard !state.waiters.isEmpty else {
                    state.free += 1
                    return nil
                }
                return state.waiters.removeFirst()
            }
            next?.resume()
        }
        return try await body()
    }
}
