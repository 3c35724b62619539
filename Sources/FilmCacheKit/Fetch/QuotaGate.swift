import Foundation
import Synchronization

/// Hands out today's OMDb calls one at a time, reserving them in the ledger in blocks.
///
/// Reserving a block per ledger transaction keeps the database off the hot path. A block is
/// the in-flight cap at first; while blocks are used up in under 50 ms (an unthrottled run)
/// it doubles, up to 8 times the cap, so a reservation rarely waits behind a batch commit;
/// once a block lasts over half a second it halves again. At a rate-limited pace it stays at
/// the cap. A crash over-counts by at most one block's unsent calls; it never under-counts.
public final class QuotaGate: Sendable {
    private let store: CacheStore
    private let key: String
    private let day: String
    private let dailyLimit: Int
    private let usable: Int
    private let smallestBlock: Int
    private let largestBlock: Int
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state: Mutex<State>

    private struct State {
        var reserved = 0
        var sent = 0
        var closed = false
        var block: Int
        var lastReservation: ContinuousClock.Instant?
    }

    /// A block used up faster than this grows; one lasting longer than `slowBlock` shrinks.
    static let fastBlock = Duration.milliseconds(50)
    static let slowBlock = Duration.milliseconds(500)
    /// How many times the in-flight cap a block may grow to.
    static let growthLimit = 8

    /// A gate for `key` on `day`, spending at most `usable` of `dailyLimit`, reserving
    /// `block` calls at a time (more while calls go fast); `now` is the clock blocks are timed on.
    public init(
        store: CacheStore, key: String, day: String, dailyLimit: Int, usable: Int, block: Int,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.store = store
        self.key = key
        self.day = day
        self.dailyLimit = dailyLimit
        self.usable = usable
        smallestBlock = max(1, block)
        largestBlock = smallestBlock * Self.growthLimit
        self.now = now
        state = Mutex(State(block: smallestBlock))
    }

    /// Takes one call; `false` when the day's budget is spent or the gate was closed.
    public func acquire() throws(StoreError) -> Bool {
        try state.withLock { (s: inout State) throws(StoreError) -> Bool in
            if s.closed { return false }
            if s.reserved == s.sent {
                let at = now()
                if let last = s.lastReservation {
                    let lasted = last.duration(to: at)
                    if lasted < Self.fastBlock {
                        s.block = min(s.block * 2, largestBlock)
                    } else if lasted > Self.slowBlock {
                        s.block = max(s.block / 2, smallestBlock)
                    }
                }
                s.lastReservation = at
                let granted = try store.reserveCalls(
                    s.block, key: key, day: day, dailyLimit: dailyLimit, usable: usable)
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
