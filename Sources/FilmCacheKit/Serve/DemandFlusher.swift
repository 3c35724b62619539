import Foundation
import Logging
import Synchronization

/// Request counts (demand) for `filmcache serve`: counted in memory as requests come, written to
/// the cache every interval, where the nightly plan reads them.
///
/// ``run()`` lasts until its task is cancelled (the serve command's graceful shutdown, after the
/// server has let its requests finish); ``flush()`` then writes the last counts.
public final class DemandFlusher: Sendable {
    private let store: any AnswerCache
    private let interval: Duration
    private let time: TimeSource
    private let logger: Logger
    private let counts = Mutex<[String: Int]>([:])

    /// Counts written to `store` every `interval` on `time`'s clock.
    init(store: any AnswerCache, interval: Duration, time: TimeSource, logger: Logger) {
        self.store = store
        self.interval = interval
        self.time = time
        self.logger = logger
    }

    /// Counts one request for `id`.
    func count(_ id: String) {
        counts.withLock { $0[id, default: 0] += 1 }
    }

    /// Requests counted and not written yet, by ID.
    var pending: [String: Int] { counts.withLock { $0 } }

    /// Writes the request counts gathered since the last time; kept for the next time if the
    /// cache cannot take them.
    public func flush() async {
        let taken = counts.withLock { counts in
            defer { counts = [:] }
            return counts
        }
        guard !taken.isEmpty else { return }
        do {
            try await store.recordDemand(taken, at: time.now)
        } catch {
            logger.warning("request counts could not be stored; kept for the next try", metadata: ["error": "\(error)"])
            counts.withLock { pending in pending.merge(taken, uniquingKeysWith: +) }
        }
    }

    /// Writes the counts every interval until the task is cancelled; the last ones are left to
    /// ``flush()``.
    public func run() async {
        while (try? await time.sleep(for: interval)) != nil { await flush() }
    }
}
