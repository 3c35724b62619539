import Dispatch

extension DispatchQueue {
    /// Runs `body` on this queue and waits for its result without holding a thread of Swift's
    /// cooperative pool, which blocking calls (SQLite's lock waits, page reads and fsyncs, the poster
    /// store's sync) would.
    package func run<T: Sendable, Failure: Error>(_ body: @escaping @Sendable () throws(Failure) -> T)
        async throws(Failure) -> T
    {
        let result: Result<T, Failure> = await withCheckedContinuation { continuation in
            self.async { continuation.resume(returning: Result { () throws(Failure) -> T in try body() }) }
        }
        return try result.get()
    }
}
