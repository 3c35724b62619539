/// Exponential backoff with full jitter for retrying one film after a transient failure.
///
/// After the `n`-th failed attempt (1-based) the wait is drawn uniformly from
/// `0 ... min(cap, base · 2^(n-1))`. A `Retry-After` from the server replaces the drawn wait,
/// even beyond `cap`; if it is longer than ``maxWait`` the film is given up for this run instead,
/// so one slow answer cannot hold a worker for hours.
package struct Backoff: Sendable, Hashable {
    /// What to do after a failed attempt.
    public enum Decision: Sendable, Hashable {
        /// Try again after this wait.
        case retry(after: Duration)
        /// Stop trying this film in this run.
        case giveUp(GiveUpReason)
    }

    /// Why a film is given up for this run.
    package enum GiveUpReason: Sendable, Hashable {
        /// Every allowed attempt failed; carries how many were made.
        case attemptsExhausted(attempts: Int)
        /// The server asked for a wait longer than ``Backoff/maxWait``; carries the wait asked for.
        case retryAfterTooLong(Duration)
    }

    /// The ceiling of the first retry's wait.
    public var base: Duration
    /// The largest ceiling any jittered wait may have.
    package var cap: Duration
    /// How many attempts a film gets in one run, the first send included; at least 1.
    public var maxAttempts: Int
    /// The longest server-requested wait (`Retry-After`) that is honoured rather than given up on.
    package var maxWait: Duration

    /// Creates a backoff policy.
    public init(
        base: Duration = .seconds(1),
        cap: Duration = .seconds(60),
        maxAttempts: Int = 5,
        maxWait: Duration = .seconds(600)
    ) {
        self.base = max(.zero, base)
        self.cap = max(.zero, cap)
        self.maxAttempts = max(1, maxAttempts)
        self.maxWait = max(.zero, maxWait)
    }

    /// The default policy: 1 s base, 60 s cap, 5 attempts, `Retry-After` honoured up to 10 minutes.
    public static let `default` = Backoff()

    /// The upper bound of the jittered wait after the `failures`-th failed attempt (1-based).
    package func ceiling(afterFailures failures: Int) -> Duration {
        let exponent = max(0, failures - 1)
        let baseNanos = base.inNanoseconds
        let capNanos = cap.inNanoseconds
        guard exponent < 63, baseNanos <= capNanos >> Int64(exponent) else { return cap }
        return .nanoseconds(baseNanos << Int64(exponent))
    }

    /// Decides what follows the `failures`-th failed attempt (1-based) of one film.
    ///
    /// `retryAfter` is the server's requested wait, already resolved against the wall clock
    /// (see ``RetryAfter/delay(relativeTo:)``); when present it wins over the jittered wait.
    package func decide(
        afterFailures failures: Int,
        retryAfter: Duration? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> Decision {
        if failures >= maxAttempts {
            return .giveUp(.attemptsExhausted(attempts: failures))
        }
        if let retryAfter {
            let wait = max(.zero, retryAfter)
            return wait > maxWait ? .giveUp(.retryAfterTooLong(wait)) : .retry(after: wait)
        }
        let ceilingNanos = UInt64(max(0, ceiling(afterFailures: failures).inNanoseconds))
        let drawn = UInt64.random(in: 0...ceilingNanos, using: &generator)
        return .retry(after: .nanoseconds(Int64(drawn)))
    }
}
