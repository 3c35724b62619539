/// The filmcache release version, shown by `--version` and in the User-Agent.
public enum FilmCacheVersion {
    public static let current = "0.1.0"
}
