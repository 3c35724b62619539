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
/// writes: one batch commits while the next one fills. Up to `concurrentCommits` commits run at
/// once (one for SQLite, which has one writer; more for a server, which works on one batch while
/// the next is on the wire or waiting for its flush to disk). A worker that fills a batch while
/// that many are still committing waits for the oldest, which bounds memory to
/// `concurrentCommits + 1` batches however long the worklist is. One at a time, commits run in
/// the order the batches filled; several at once, batches hold different IDs (a run asks for each
/// once) and each writes its rows in ID order, so they neither wait on each other in a circle nor
/// depend on each other's order. A failed commit is reported to every later `add` and `flush`, so
/// all workers stop.
actor BatchWriter {
    private let store: any FilmStore
    private let batchSize: Int
    private let concurrentCommits: Int
    private let commitInterval: Duration
    /// Time on the job's clock, from any fixed origin.
    private let elapsed: @Sendable () -> Duration
    /// When the pending batch got its first result.
    private var batchStartedAt: Duration?
    private var batch = WriteBatch()
    /// The commits under way, by the order they started in; each clears itself when done.
    private var committing: [Int: Task<Void, Never>] = [:]
    private var commitsStarted = 0
    /// The first commit that failed; nothing more is written after it.
    private var failure: StoreError?

    /// A writer to `store` committing every `batchSize` results or every `commitInterval` on `clock`,
    /// `concurrentCommits` commits at a time.
    init(
        store: any FilmStore, batchSize: Int, concurrentCommits: Int = 1, commitInterval: Duration = .seconds(1),
        clock: any Clock<Duration>
    ) {
        self.store = store
        self.batchSize = max(1, batchSize)
        self.concurrentCommits = max(1, concurrentCommits)
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
        guard failure == nil, committing.count < concurrentCommits, isDue else { return }
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
        await settle()
        if failure == nil, !batch.isEmpty {
            startCommit()
            await settle()
        }
        if let failure { throw failure }
    }

    /// Waits until no commit is under way.
    private func settle() async {
        while let oldest = oldestCommit { await oldest.value }
    }

    /// The commit under way that started first.
    private var oldestCommit: Task<Void, Never>? {
        committing.min { $0.key < $1.key }?.value
    }

    /// Starts a commit of the full batch, first waiting for the one under way.
    private func commitWhenFull() async throws(StoreError) {
        if committing.count < concurrentCommits, isDue { startCommit() }
        while batch.count >= batchSize {
            // Other workers add to the batch while this one waits; whoever finds the writer
            // free first starts the commit, and the batch it takes is what had arrived by then.
            if committing.count >= concurrentCommits, let oldest = oldestCommit {
                await oldest.value
                continue
            }
            startCommit()
        }
        if let failure { throw failure }
    }

    /// Hands the batch to the store; it is in `committing` until the transaction ends.
    private func startCommit() {
        let pending = batch
        batch = WriteBatch()
        batchStartedAt = nil
        let store = store
        let id = commitsStarted
        commitsStarted += 1
        committing[id] = Task {
            var result: StoreError?
            do throws(StoreError) {
                try await store.write(pending)
            } catch {
                result = error
            }
            if failure == nil { failure = result }
            committing[id] = nil
        }
    }
}
