// The helpers every test target shares (sample films, a temporary directory, scratch databases),
// in scope in every file of this one.
@_exported import FilmCacheTestSupport
