/// TMDb's request ceiling in front of its API: a sliding one-second window, 429 storms asked for
/// by the control endpoint, and the bookkeeping of every `Retry-After` it announces.
///
/// A value type over instants of the server's monotonic clock; the service calls it under its lock.
struct TMDbGate: Sendable {
    /// The clock's instants.
    typealias Instant = ContinuousClock.Instant

    /// What to do with one API request.
    enum Decision: Equatable {
        /// Go on to authorization and the answer.
        case pass
        /// Answer 429 with `Retry-After: seconds`.
        case tooManyRequests(retryAfterSeconds: Int)
    }

    /// Arrivals in the last second, oldest first.
    private var arrivals: [Instant] = []
    /// The latest instant a 429 told the client to wait until.
    private(set) var retryUntil: Instant?
    /// Requests the current storm still answers 429.
    private(set) var stormRemaining = 0
    /// The `Retry-After` of the storm's answers.
    private var stormRetryAfter = 1
    /// When the latest 429 that announced a wait was sent.
    private var announcedAt: Instant?
    /// How long after a 429 leaves a request still counts as sent before the client could have read
    /// it (already on the wire, or sent by another connection's worker meanwhile): a client with
    /// several requests in flight cannot take back those it sent before the answer reached it.
    static let inFlightGrace = Duration.milliseconds(250)

    /// Makes the next `requests` API requests answer 429 with `Retry-After: retryAfterSeconds` (at least 1).
    mutating func startStorm(requests: Int, retryAfterSeconds: Int) {
        stormRemaining = max(0, requests)
        stormRetryAfter = max(1, retryAfterSeconds)
    }

    /// Whether a request at `now` arrives before the latest announced `Retry-After` instant.
    func isInsideRetryAfter(at now: Instant) -> Bool {
        retryUntil.map { now < $0 } ?? false
    }

    /// Whether a request at `now` is one the client sent inside a wait it had been told of: after the
    /// latest announced 429 plus ``inFlightGrace``, before the announced instant.
    func isEarly(at now: Instant) -> Bool {
        guard let until = retryUntil, now < until else { return false }
        return announcedAt.map { now >= $0 + Self.inFlightGrace } ?? true
    }

    /// Decides a request arriving at `now`, with `rateLimit` requests a second allowed (nil: no
    /// limit) and `retryAfterSeconds` announced when the limit is passed.
    ///
    /// In order: a storm answers 429 while it lasts; a request inside an announced wait is answered
    /// 429 with the wait that remains (the wait is not lengthened, so a client that waits out the
    /// first answer is never counted); a request over the limit is answered 429. Every arrival
    /// counts toward the window, refused ones too, as TMDb counts what reaches it.
    mutating func admit(at now: Instant, rateLimit: Int?, retryAfterSeconds: Int) -> Decision {
        let windowStart = now - .seconds(1)
        if let firstKept = arrivals.firstIndex(where: { $0 > windowStart }) {
            arrivals.removeFirst(firstKept)
        } else {
            arrivals.removeAll()
        }
        let inWindow = arrivals.count
        arrivals.append(now)
        if stormRemaining > 0 {
            stormRemaining -= 1
            return announce(stormRetryAfter, at: now)
        }
        if let until = retryUntil, now < until {
            let remaining = until - now
            let seconds = remaining.components.seconds + (remaining.components.attoseconds > 0 ? 1 : 0)
            return .tooManyRequests(retryAfterSeconds: max(1, Int(seconds)))
        }
        if let rateLimit, inWindow >= rateLimit {
            return announce(max(1, retryAfterSeconds), at: now)
        }
        return .pass
    }

    /// Clears the window, the storm and the announced wait.
    mutating func reset() {
        self = TMDbGate()
    }

    private mutating func announce(_ seconds: Int, at now: Instant) -> Decision {
        let until = now + .seconds(seconds)
        if retryUntil.map({ until > $0 }) ?? true { retryUntil = until }
        announcedAt = now
        return .tooManyRequests(retryAfterSeconds: seconds)
    }
}
