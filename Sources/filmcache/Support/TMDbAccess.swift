import FilmCacheKit

/// The one way the commands reach the TMDb side of a cache.
///
/// A backend keeps TMDb's entries only once it implements ``TMDbStore``; until every backend does,
/// a backend that does not is read as a cache holding no TMDb data, so the reports print no TMDb
/// section and behave as they did before TMDb.
enum TMDbAccess {
    /// The TMDb side of `store`, or `nil` when the backend keeps no TMDb data.
    static func store(_ store: any Sendable) -> (any TMDbStore)? {
        store as? any TMDbStore
    }
}
