import Dispatch
import Foundation

/// Collects results and commits them in batches, one transaction each, on a thread of its own.
///
/// A batch commits when it holds `batchSize` results or when its oldest result has waited
/// `commitInterval` (checked at each `add` and at each ``tick()``, which the job calls twice per
/// interval): at a slow pace a kill then loses at most about two intervals of paid answers,
/// never a whole batch.
///
/// A commit runs on the writer's own dispatch queue, not on the concurrency pool, so fetch
/// workers keep normalizing and sending while SQLite writes: one batch commits while the next
/// one fills. A worker that fills a batch while the previous one is still committing waits for
/// that commit, which bounds memory to two batches however long the worklist is. Commits run
/// one at a time, in the order the batches filled. A failed commit is reported to every later
/// `add` and `flush`, so all workers stop.
actor BatchWriter {
    private let store: CacheStore
    private let batchSize: Int
    private let commitInterval: Duration
    /// Time on the job's clock, from any fixed origin.
    private let elapsed: @Sendable () -> Duration
    /// When the pending batch got its first result.
    private var batchStartedAt: Duration?
    private let queue = DispatchQueue(label: "filmcache.batch-writer")
    private var batch = WriteBatch()
    /// The commit under way, if any; it clears itself when done.
    private var committing: Task<Void, Never>?
    /// The first commit that failed; nothing more is written after it.
    private var failure: StoreError?

    /// A writer to `store` committing every `batchSize` results or every `commitInterval` on `clock`.
    init(store: CacheStore, batchSize: Int, commitInterval: Duration = .seconds(1), clock: any Clock<Duration>) {
        self.store = store
        self.batchSize = max(1, batchSize)
        self.commitInterval = commitInterval
        elapsed = Self.stopwatch(clock)
    }

    /// Time on `clock` since this call.
    private static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let origin = clock.now
        return { origin.duration(to: clock.now) }
    }

    /// Starts a commit of the pending batch if its oldest result has waited the commit interval.
    func tick() {
        guard failure == nil, committing == nil, isDue else { return }
        startCommit()
    }

    /// Whether the pending batch is non-empty and its oldest result has waited the commit interval.
    private var isDue: Bool {
        guard let batchStartedAt, !batch.isEmpty else { return false }
        return elapsed() - batchStartedAt >= commitInterval
    }

    /// Adds a film, starting a commit when the batch is full.
    func add(_ film: IMDBFilm) async throws(StoreError) { try await add { $0.films.append(film) } }

    /// Adds an alias (an ID answered with another title's body), starting a commit when the batch is full.
    func add(_ alias: FilmAlias) async throws(StoreError) { try await add { $0.aliases.append(alias) } }

    /// Adds a negative result, starting a commit when the batch is full.
    func add(_ lookup: LookupRecord) async throws(StoreError) { try await add { $0.lookups.append(lookup) } }

    /// Adds what OMDb answered for a title, starting a commit when the batch is full.
    func add(_ answer: TitleAnswer) async throws(StoreError) { try await add { $0.titles.append(answer) } }

    /// Adds one result to the pending batch with `append`, starting a commit when the batch is full.
    private func add(_ append: (inout WriteBatch) -> Void) async throws(StoreError) {
        if let failure { throw failure }
        if batch.isEmpty { batchStartedAt = elapsed() }
        append(&batch)
        try await commitWhenFull()
    }

    /// Commits whatever is pending and waits until every commit has finished.
    ///
    /// On return the writer's queue holds nothing, not even the store: a block that resumed its
    /// waiter still owns what it captured until it returns, and a process ending before then
    /// would never close the database (whose last close folds the WAL into the file).
    func flush() async throws(StoreError) {
        while let committing { await committing.value }
        if failure == nil, !batch.isEmpty {
            startCommit()
            while let committing { await committing.value }
        }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        if let failure { throw failure }
    }

    /// Starts a commit of the full batch, first waiting for the one under way.
    private func commitWhenFull() async throws(StoreError) {
        if committing == nil, isDue { startCommit() }
        while batch.count >= batchSize {
            // Other workers add to the batch while this one waits; whoever finds the writer
            // free first starts the commit, and the batch it takes is what had arrived by then.
            if let committing {
                await committing.value
                continue
            }
            startCommit()
        }
        if let failure { throw failure }
    }

    /// Hands the batch to the writer's queue; `committing` is set until the transaction ends.
    private func startCommit() {
        let pending = batch
        batch = WriteBatch()
        batchStartedAt = nil
        let store = store
        let queue = queue
        committing = Task {
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<StoreError?, Never>) in
                queue.async {
                    do throws(StoreError) {
                        try store.write(pending)
                        continuation.resume(returning: nil)
                    } catch {
                        continuation.resume(returning: error)
                    }
                }
            }
            if failure == nil { failure = result }
            committing = nil
        }
    }
}
