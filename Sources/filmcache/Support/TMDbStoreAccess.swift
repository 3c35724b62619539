import FilmCacheKit

/// The TMDb side of an open cache, or `nil` when its backend keeps no TMDb entries yet.
///
/// The one place a command reaches TMDb's tables: everything below the commands takes
/// `any TMDbStore`. Once every backend keeps them, this becomes the backend itself.
func tmdbStore(of cache: any CacheBackend) -> (any TMDbStore)? {
    cache as? any TMDbStore
}
