import Foundation
import Synchronization

/// Hands out today's OMDb calls one at a time, reserving them in the ledger in blocks.
///
/// Reserving a block per ledger transaction keeps the database off the hot path. A block is
/// the in-flight cap at first; while blocks are used up in under 50 ms (an unthrottled run)
/// it doubles, up to 8 times the cap, so a reservation rarely waits behind a batch commit;
/// once a block lasts over half a second it halves again. While a block is larger than the cap
/// the next one is reserved when half of it is left, so no caller waits on the ledger (a
/// reservation on a server takes a few milliseconds, in which a fast run sends a hundred calls).
/// At a rate-limited pace it stays at the cap and reserves only when spent. A crash over-counts
/// by at most one and a half blocks' unsent calls; it never under-counts.
package final class QuotaGate: Sendable {
    private let store: any QuotaLedger
    /// Keeps ledger calls (new minute, new block, the final release) to one at a time.
    private let ledgerSerial = AsyncLock()
    private let key: String
    private let dailyLimit: Int
    private let usable: Int
    private let smallestBlock: Int
    private let largestBlock: Int
    private let runID: Int?
    private let time: TimeSource
    private let quotaDay: @Sendable (Date) -> QuotaDay
    private let state: Mutex<State>

    private struct State {
        /// The quota day the current reservation is charged to.
        var day: QuotaDay
        /// The minute (since 1970 UTC) the current reservation is charged to.
        var minute: Int
        /// Calls reserved for `day` and `minute` and handed out in them.
        var reserved = 0
        var sentInMinute = 0
        /// Calls handed out over the whole run, every day included.
        var sent = 0
        var closed = false
        /// Callers waiting for the ledger.
        var waiting = 0
        var block: Int
        var lastReservation: Duration?
        /// A block is being reserved ahead of need.
        var reservingAhead = false
        /// The quota day's budget had no room left when a block was asked ahead: what is reserved
        /// is handed out, then the gate closes.
        var spent = false

        /// Whether half the current block or less is left to hand out.
        var halfSpent: Bool { reserved - sentInMinute <= block / 2 }
    }

    /// A block used up faster than this grows; one lasting longer than `slowBlock` shrinks.
    static let fastBlock = Duration.milliseconds(50)
    static let slowBlock = Duration.milliseconds(500)
    /// How many times the in-flight cap a block may grow to.
    package static let growthLimit = 8

    /// A gate for `key`, spending at most `usable` of `dailyLimit` a quota day, reserving `block`
    /// calls at a time (up to `growth` times more while calls go fast).
    ///
    /// `time`'s wall clock and `quotaDay` say which quota day and minute a call handed out now belongs to:
    /// each call is charged to the minute in which it is sent, so a run crossing a minute (and so a
    /// quota day's midnight in any zone) gives the old minute's unsent reservation back and
    /// reserves anew. `runID` is the run whose
    /// `runs` row counts the reservations (so a killed run can be closed with them); blocks are timed on
    /// `time`'s clock.
    public init(
        store: any QuotaLedger, key: String, dailyLimit: Int, usable: Int, block: Int,
        growth: Int = QuotaGate.growthLimit,
        runID: Int? = nil,
        time: TimeSource,
        quotaDay: @escaping @Sendable (Date) -> QuotaDay = { QuotaDay(containing: $0) }
    ) {
        self.store = store
        self.key = key
        self.dailyLimit = dailyLimit
        self.usable = usable
        smallestBlock = max(1, block)
        largestBlock = smallestBlock * max(1, growth)
        self.runID = runID
        self.time = time
        self.quotaDay = quotaDay
        let instant = time.now
        state = Mutex(State(day: quotaDay(instant), minute: QuotaDay.minute(of: instant), block: smallestBlock))
    }

    /// Takes one call, charged to the quota day it is taken on; `false` when that day's budget is
    /// spent or the gate was closed.
    ///
    /// A call from the current reservation is handed out under the mutex, with no suspension;
    /// only a new minute, a spent reservation or (calls going fast) the call leaving half a block
    /// goes to the ledger, one caller at a time. Callers
    /// waiting for the ledger are served in the order they came, and none is overtaken: while
    /// any waits, a new caller waits behind it, so calls go out in the order they were asked for.
    public func acquire() async throws(StoreError) -> Bool {
        let fast = state.withLock { (s: inout State) -> (taken: Bool, ahead: Bool)? in
            if s.closed { return (false, false) }
            if s.waiting == 0, take(&s) {
                // Calls going fast (the block has grown): the next block is asked for while half of
                // this one is left, so no caller waits on the ledger.
                let ahead = s.block > smallestBlock && !s.reservingAhead && !s.spent && s.halfSpent
                if ahead { s.reservingAhead = true }
                return (true, ahead)
            }
            s.waiting += 1
            return nil
        }
        if let fast {
            // The caller taking the call at the half mark reserves the next block; the other callers
            // go on with the half left meanwhile.
            if fast.ahead { await reserveAhead() }
            return fast.taken
        }
        defer { state.withLock { $0.waiting -= 1 } }
        return try await ledgerSerial.withLock { () throws(StoreError) -> Bool in
            while true {
                let taken = state.withLock { (s: inout State) -> Bool? in
                    if s.closed { return false }
                    if take(&s) { return true }
                    // Spent, unless a minute passed: then what this one left unsent goes back (``refill``).
                    if s.spent, QuotaDay.minute(of: time.now) == s.minute {
                        s.closed = true
                        return false
                    }
                    return nil
                }
                if let taken { return taken }
                try await refill()
            }
        }
    }

    /// Hands out one call of the current reservation, if it has one and its minute is still now.
    private func take(_ s: inout State) -> Bool {
        guard QuotaDay.minute(of: time.now) == s.minute, s.reserved > s.sentInMinute else { return false }
        s.sentInMinute += 1
        s.sent += 1
        return true
    }

    /// Reserves the next block while half of the current one is left; a failure is met again by
    /// the caller that next needs the ledger.
    private func reserveAhead() async {
        await ledgerSerial.withLock {
            try? await refill(ahead: true)
            state.withLock { $0.reservingAhead = false }
        }
    }

    /// Moves to a new minute (giving the old one's unsent calls back) and reserves a block when the
    /// reservation is spent (or, `ahead`, half spent); run by one caller at a time, under `ledgerSerial`.
    private func refill(ahead: Bool = false) async throws(StoreError) {
        let instant = time.now
        let minute = QuotaDay.minute(of: instant)
        // A minute passed: what was reserved and not sent goes back to the minute (and day) it was
        // reserved in, and calls from here on are charged to this one. Past the quota day's
        // midnight the new day's budget applies. Until the new block lands, nothing is handed out.
        let rollover = state.withLock { (s: inout State) -> (unsent: Int, day: QuotaDay, minute: Int)? in
            guard !s.closed, minute != s.minute else { return nil }
            let old = (s.reserved - s.sentInMinute, s.day, s.minute)
            if !s.day.contains(instant) {
                s.day = quotaDay(instant)
                s.lastReservation = nil
                s.spent = false
            } else if old.0 > 0 {
                // A block asked ahead may have found the day's budget spent, but the calls given back
                // here are room in it again: a run crossing a minute near its budget spends all of it.
                s.spent = false
            }
            s.minute = minute
            s.reserved = 0
            s.sentInMinute = 0
            return old
        }
        if let rollover {
            try await store.releaseCalls(
                rollover.unsent, key: key, day: rollover.day, minute: rollover.minute, runID: runID)
        }
        let request = state.withLock { (s: inout State) -> (block: Int, day: QuotaDay, minute: Int)? in
            guard !s.closed, !s.spent,
                ahead ? s.halfSpent : s.reserved == s.sentInMinute
            else { return nil }
            let at = time.elapsed()
            if let last = s.lastReservation {
                let lasted = at - last
                if lasted < Self.fastBlock {
                    s.block = min(s.block * 2, largestBlock)
                } else if lasted > Self.slowBlock {
                    s.block = max(s.block / 2, smallestBlock)
                }
            }
            s.lastReservation = at
            return (s.block, s.day, s.minute)
        }
        guard let request else { return }
        let granted = try await store.reserveCalls(
            request.block, key: key, day: request.day, minute: request.minute, dailyLimit: dailyLimit,
            usable: usable, runID: runID)
        state.withLock { s in
            if granted == 0 {
                // Ahead of need, the calls still reserved are handed out first.
                if ahead { s.spent = true } else { s.closed = true }
            } else {
                s.reserved += granted
            }
        }
    }

    /// Takes back one call handed out by ``acquire()`` whose request provably never left (no
    /// connection was ever opened): it returns to the reservation, and ``finish()`` gives it back
    /// to the ledger with the other unsent ones. Never for a call that may have been sent.
    package func giveBack() {
        state.withLock { s in
            if s.sentInMinute > 0 {
                s.sentInMinute -= 1
                s.sent -= 1
            }
        }
    }

    /// Stops handing out calls (the limit was reached or the run is ending).
    public func close() {
        state.withLock { $0.closed = true }
    }

    /// Calls handed out so far, every quota day of the run included.
    public var sent: Int { state.withLock { $0.sent } }

    /// Closes the gate and gives unsent reservations back to the ledger.
    public func finish() async throws(StoreError) {
        try await ledgerSerial.withLock { () throws(StoreError) in
            let (unsent, day, minute) = state.withLock { s -> (Int, QuotaDay, Int) in
                s.closed = true
                let unsent = s.reserved - s.sentInMinute
                s.reserved = s.sentInMinute
                return (unsent, s.day, s.minute)
            }
            try await store.releaseCalls(unsent, key: key, day: day, minute: minute, runID: runID)
        }
    }
}
