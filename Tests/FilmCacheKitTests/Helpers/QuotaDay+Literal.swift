import FilmCacheKit

/// A quota day in UTC written as its key, `"2026-11-21"`, in tests.
extension QuotaDay: ExpressibleByStringLiteral {
    public init(stringLiteral key: String) {
        self = QuotaDay(key: key)!
    }
}
