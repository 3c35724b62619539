/// How far a warm's fetch has come: what a ``ProgressSink`` is handed at every tick.
public struct WarmProgress: Sendable, Equatable {
    /// IDs finished this run: fetched, not found, or failed after their retries.
    public var done: Int
    /// IDs the plan fetches this run.
    public var total: Int
    /// Films fetched and stored so far.
    public var fetched: Int
    /// IDs OMDb does not know, so far.
    public var notFound: Int
    /// IDs that failed, so far.
    public var failed: Int
    /// OMDb calls sent so far (retries included).
    public var calls: Int
    /// Calls left in today's budget (the limit less the reserve) after this run's calls.
    public var quotaLeft: Int
    /// Time since the fetch began.
    public var elapsed: Duration

    /// A snapshot with every count given.
    public init(
        done: Int, total: Int, fetched: Int = 0, notFound: Int = 0, failed: Int = 0, calls: Int = 0,
        quotaLeft: Int, elapsed: Duration
    ) {
        self.done = done
        self.total = total
        self.fetched = fetched
        self.notFound = notFound
        self.failed = failed
        self.calls = calls
        self.quotaLeft = quotaLeft
        self.elapsed = elapsed
    }

    /// IDs finished per second since the fetch began; 0 before any time has passed.
    public var rate: Double {
        let seconds = elapsed.inSeconds
        return seconds > 0 ? Double(done) / seconds : 0
    }

    /// Time until the rest is done at the rate so far; `nil` while no ID has finished.
    package var estimatedTimeLeft: Duration? {
        let left = max(0, total - done)
        if left == 0 { return .zero }
        let rate = rate
        guard rate > 0 else { return nil }
        return .seconds(Double(left) / rate)
    }
}
