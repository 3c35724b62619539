import Foundation

/// Collects results and commits them in batches, one transaction each, on a thread of its own.
///
/// A batch commits when it holds `batchSize` results or when its oldest result has waited
/// `commitInterval` (checked at each `add` and at each ``tick()``, which the job calls twice per
/// interval): at a slow pace a kill then loses at most about two intervals of paid answers,
/// never a whole batch.
///
/// A commit runs in a task of its own while the store works (the SQLite backend on its own
/// thread, PostgreSQL on the wire), so fetch workers keep normalizing and sending while it
/// writes: one batch commits while the next one fills. A worker that fills a batch while the previous one is still committing waits for
/// that commit, which bounds memory to two batches however long the worklist is. Commits run
/// one at a time, in the order the batches filled. A failed commit is reported to every later
/// `add` and `flush`, so all workers stop.
actor BatchWriter {
    private let store: any FilmStore
    private let batchSize: Int
    private let commitInterval: Duration
    /// Time on the job's clock, from any fixed origin.
    private let elapsed: @Sendable () -> Duration
    /// When the pending batch got its first result.
    private var batchStartedAt: Duration?
    private var batch = WriteBatch()
    /// The commit under way, if any; it clears itself when done.
    private var committing: Task<Void, Never>?
    /// The first commit that failed; nothing more is written after it.
    private var failure: StoreError?

    /// A writer to `store` committing every `batchSize` results or every `commitInterval` on `clock`.
    init(store: any FilmStore, batchSize: Int, commitInterval: Duration = .seconds(1), clock: any Clock<Duration>) {
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
    func flush() async throws(StoreError) {
        while let committing { await committing.value }
        if failure == nil, !batch.isEmpty {
            startCommit()
            while let committing { await committing.value }
        }
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

    /// Hands the batch to the store; `committing` is set until the transaction ends.
    private func startCommit() {
        let pending = batch
        batch = WriteBatch()
        batchStartedAt = nil
        let store = store
        committing = Task {
            var result: StoreError?
            do throws(StoreError) {
                try await store.write(pending)
            } catch {
                result = error
            }
            if failure == nil { failure = result }
            committing = nil
        }
    }
}
