/// What one OMDb call came to, for the per-outcome call counts of a run and its metrics.
package enum CallOutcome: String, Sendable, CaseIterable, Codable, CodingKeyRepresentable {
    /// A film arrived.
    case film
    /// OMDb said it does not know the ID.
    case notFound = "not_found"
    /// The ID's last try failed (transient trouble after the retries, a rejected request or key, a bad body).
    case failed
    /// A transient failure that was tried again.
    case retried
    /// OMDb said the daily limit is reached.
    case limit
}
