import Foundation

/// Collects results and commits them in batches, one transaction each.
///
/// Fetch workers await `add`; while a batch commits they wait, which bounds memory
/// however long the worklist is.
actor BatchWriter {
    private let store: CacheStore
    private let batchSize: Int
    private var batch = WriteBatch()

    init(store: CacheStore, batchSize: Int) {
        self.store = store
        self.batchSize = max(1, batchSize)
    }

    /// Adds a film, committing when the batch is full.
    func add(_ film: IMDBFilm) throws(StoreError) {
        batch.films.append(film)
        if batch.count >= batchSize { try flush() }
    }

    /// Adds a negative result, committing when the batch is full.
    func add(_ lookup: LookupRecord) throws(StoreError) {
        batch.lookups.append(lookup)
        if batch.count >= batchSize { try flush() }
    }

    /// Commits whatever is pending.
    func flush() throws(StoreError) {
        guard !batch.isEmpty else { return }
        let pending = batch
        batch = WriteBatch()
        try store.write(pending)
    }
}
