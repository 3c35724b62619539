import Synchronization

/// The IDs and titles still to fetch, shared by the fetch workers.
///
/// With a ``Claimer`` (a cache shared by several warms at once) the queue hands out only what the
/// run has claimed: it claims the plan a chunk at a time, in plan order, passes over IDs another
/// run has answered since the plan, and comes back, after a pause, to IDs another live run holds,
/// so IDs a dead run had claimed are fetched once the store lets them go (on PostgreSQL at once,
/// its session with the server having ended; for a run cut off from the server, when its lease
/// expires). The next chunk is claimed
/// while the workers still have half a chunk to go, so no worker waits on a claim mid-plan.
final class WorkQueue: Sendable {
    /// How a run claims its share of a shared plan.
    struct Claimer: Sendable {
        /// IDs claimed at a time.
        var chunk: Int
        /// Claims IDs for this run.
        var claim: @Sendable ([String]) async throws(StoreError) -> ClaimOutcome
        /// Waits before asking again for IDs another run holds (the how-manieth time in a row that
        /// nothing new was granted, from 0); `false` when the run is stopping.
        var pause: @Sendable (_ attempt: Int) async -> Bool
    }

    private let state: Mutex<State>

    private struct State {
        var targets: FetchTargets
        var failedBefore: [String: Int]
        /// IDs a title resolved to during the run: the film came with the answer, so its ID is not asked again.
        var arrived: Set<String> = []
        var next = 0
        var returned = 0
        var closed = false
        /// Claimed and not handed out yet.
        var ready: [FetchTarget] = []
        var readyNext = 0
        /// Held by another live run when last asked.
        var held: [FetchTarget] = []
        /// Answered by another run since the plan.
        var answeredElsewhere = 0
        /// Revisits of held IDs in a row that were granted nothing.
        var fruitlessRevisits = 0
        /// The claim ahead of need under way, if one is.
        var aheadClaim: Task<Void, Never>?
    }

    private let stopToken: WarmStop?
    private let claimer: Claimer?
    /// One claim at a time.
    private let claiming = AsyncLock()

    /// A queue over `targets`; once `stop` is requested it hands out nothing more. With `claimer`
    /// it hands out only what the run claims.
    init(_ targets: FetchTargets, failedBefore: [String: Int] = [:], stop: WarmStop? = nil, claimer: Claimer? = nil) {
        state = Mutex(State(targets: targets, failedBefore: failedBefore))
        stopToken = stop
        self.claimer = claimer
    }

    /// A queue over `targets` (tests name them as an array).
    convenience init(
        _ targets: [FetchTarget], failedBefore: [String: Int] = [:], stop: WarmStop? = nil, claimer: Claimer? = nil
    ) {
        self.init(FetchTargets(targets), failedBefore: failedBefore, stop: stop, claimer: claimer)
    }

    /// Runs in a row that failed for `id` before this one.
    func failedBefore(_ id: String) -> Int { state.withLock { $0.failedBefore[id] ?? 0 } }

    /// Records that the film `id` arrived (a title resolved to it): the queue skips that ID from now on.
    func arrived(_ id: String) {
        _ = state.withLock { $0.arrived.insert(id) }
    }

    /// The next ID or title, or `nil` when all are taken (or held by other runs to the end), the
    /// queue was closed, or a stop was requested.
    ///
    /// An ID whose film already arrived in this run is passed over: it counts as done, not remaining.
    func next() async throws(StoreError) -> FetchTarget? {
        while true {
            if stopToken?.isRequested == true { return nil }
            let (target, done) = state.withLock { s -> (FetchTarget?, Bool) in
                if s.closed { return (nil, true) }
                guard let claimer else {
                    let target = Self.take(s.targets, at: &s.next, skipping: s.arrived)
                    return (target, target == nil)
                }
                let target = Self.take(s.ready, at: &s.readyNext, skipping: s.arrived)
                if target != nil, s.aheadClaim == nil, s.next < s.targets.count,
                    s.ready.count - s.readyNext < claimer.chunk / 2
                {
                    s.aheadClaim = claimAhead(with: claimer)
                }
                return (target, false)
            }
            if let target { return target }
            guard !done, let claimer else { return nil }
            let more = try await claiming.withLock { () throws(StoreError) -> Bool in
                try await claim(with: claimer, ahead: false)
            }
            if !more { return nil }
        }
    }

    /// Claims the next chunk of the plan in a task of its own, while the workers take what is
    /// ready. A failure is left for the next claim a worker waits on to meet again.
    private func claimAhead(with claimer: Claimer) -> Task<Void, Never> {
        Task {
            _ = try? await claiming.withLock { () throws(StoreError) -> Bool in
                try await claim(with: claimer, ahead: true)
            }
            state.withLock { $0.aheadClaim = nil }
        }
    }

    /// Waits for every claim under way: after this no claim of this run's is made, so releasing
    /// its claims releases all of them.
    func settle() async {
        while let claim = state.withLock({ $0.aheadClaim }) { await claim.value }
        await claiming.withLock {}
    }

    /// Claims the next chunk of the plan, or when the plan is all asked, the IDs other runs held;
    /// `false` when nothing is left to ask for. `ahead`: claimed while some are still ready (never a revisit).
    private func claim(with claimer: Claimer, ahead: Bool) async throws(StoreError) -> Bool {
        let (chunk, revisit, attempt) = state.withLock { s -> ([FetchTarget], Bool, Int) in
            // Stopped, or another worker claimed while this one waited.
            if s.closed || stopToken?.isRequested == true { return ([], false, 0) }
            if !ahead, s.readyNext < s.ready.count { return ([], false, 0) }
            var chunk: [FetchTarget] = []
            while chunk.count < claimer.chunk, let target = Self.take(s.targets, at: &s.next, skipping: s.arrived) {
                chunk.append(target)
            }
            if chunk.isEmpty && !ahead {
                swap(&chunk, &s.held)
                return (chunk, true, s.fruitlessRevisits)
            }
            return (chunk, false, 0)
        }
        if chunk.isEmpty { return state.withLock { !$0.closed && $0.readyNext < $0.ready.count } }
        if revisit, await !claimer.pause(attempt) {
            state.withLock { $0.held = chunk + $0.held }
            return false
        }
        let outcome: ClaimOutcome
        do {
            outcome = try await claimer.claim(chunk.map(\.claimKey))
        } catch {
            state.withLock { $0.held = chunk + $0.held }
            throw error
        }
        let granted = Set(outcome.granted)
        let answered = Set(outcome.answered)
        state.withLock { s in
            s.ready.removeFirst(s.readyNext)
            s.ready += chunk.filter { granted.contains($0.claimKey) }
            s.readyNext = 0
            if revisit { s.fruitlessRevisits = granted.isEmpty ? s.fruitlessRevisits + 1 : 0 }
            s.held += chunk.filter { !granted.contains($0.claimKey) && !answered.contains($0.claimKey) }
            s.answeredElsewhere += chunk.count { answered.contains($0.claimKey) }
        }
        return true
    }

    /// The first target of `list` from `index` whose film has not `arrived`, moving `index` past it.
    private static func take<Targets: RandomAccessCollection<FetchTarget>>(
        _ list: Targets, at index: inout Int, skipping arrived: Set<String>
    ) -> FetchTarget? where Targets.Index == Int {
        while index < list.count {
            let target = list[index]
            index += 1
            if let id = target.imdbID, arrived.contains(id) { continue }
            return target
        }
        return nil
    }

    /// Hands out nothing more; the target the caller holds counts as not done.
    func stop() {
        state.withLock {
            $0.closed = true
            $0.returned += 1
        }
    }

    /// Targets never taken plus those held when the queue stopped (claimed or held by other runs).
    var remaining: Int {
        state.withLock {
            $0.targets.count - $0.next + $0.returned + ($0.ready.count - $0.readyNext) + $0.held.count
        }
    }

    /// IDs of the plan another run answered since the plan.
    var answeredElsewhere: Int { state.withLock { $0.answeredElsewhere } }
}
