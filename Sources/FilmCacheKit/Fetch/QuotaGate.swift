import Foundation
import Synchronization

/// Hands out today's OMDb calls one at a time, reserving them in the ledger in small blocks.
///
/// Reserving a block (at most the in-flight cap) per ledger transaction keeps the
/// database off the hot path; a crash over-counts by at most one block's unsent calls.
public final class QuotaGate: Sendable {
    private let store: CacheStore
    private let key: String
    private let day: String
    private let dailyLimit: Int
    private let usable: Int
    private let block: Int
    private let state = Mutex(State())

    private struct State {
        var reserved = 0
        var sent = 0
        var closed = false
    }

    /// A gate for `key` on `day`, spending at most `usable` of `dailyLimit`.
    public init(store: CacheStore, key: String, day: String, dailyLimit: Int, usable: Int, block: Int) {
        self.store = store
        self.key = key
        self.day = day
        self.dailyLimit = dailyLimit
        self.usable = usable
        self.block = max(1, block)
    }

    /// Takes one call; `false` when the day's budget is spent or the gate was closed.
    public func acquire() throws(StoreError) -> Bool {
        try state.withLock { (s: inout State) throws(StoreError) -> Bool in
            if s.closed { return false }
            if s.reserved == s.sent {
                let granted = try store.reserveCalls(block, key: key, day: day, dailyLimit: dailyLimit, usable: usable)
                if granted == 0 {
                    s.closed = true
                    return false
                }
                s.reserved += granted
            }
            s.sent += 1
            return true
        }
    }

    /// Stops handing out calls (the limit was reached or the run is ending).
    public func close() {
        state.withLock { $0.closed = true }
    }

    /// Calls handed out so far.
    public var sent: Int { state.withLock { $0.sent } }

    /// Closes the gate and gives unsent reservations back to the ledger.
    public func finish() throws(StoreError) {
        let unsent = state.withLock { s -> Int in
            s.closed = true
            let unsent = s.reserved - s.sent
            s.reserved = s.sent
            return unsent
        }
        try store.releaseCalls(unsent, key: key, day: day)
    }
}
