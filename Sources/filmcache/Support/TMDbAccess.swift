import FilmCacheKit

/// The one way the commands reach the TMDb side of a cache: every backend keeps it.
enum TMDbAccess {
    /// The TMDb side of `store`.
    static func store(_ store: any CacheBackend) -> (any TMDbStore)? { store }
}
