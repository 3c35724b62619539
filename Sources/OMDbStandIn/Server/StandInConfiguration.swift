/// Everything a stand-in server needs to start.
public struct StandInConfiguration: Sendable {
    /// The IPv4 address to listen on: loopback by default; another one (a bridge's, a veth's) lets
    /// processes in other network namespaces reach the stand-in.
    public var host: String
    /// The port to bind; 0 picks a free one (`OMDbStandInServer.start()` returns it).
    public var port: Int
    /// The API keys answered as valid. They are never logged or exposed; stats name them by index
    /// and fingerprint.
    public var apiKeys: [String]
    /// The TMDb tokens answered as valid (as `Authorization: Bearer TOKEN` or `api_key=TOKEN`),
    /// apart from the OMDb keys. Never logged or exposed; stats name them by index and fingerprint.
    public var tmdbTokens: [String]
    /// The films served.
    public var corpus: FilmCorpus
    /// The initial answer-shaping knobs (limits, faults, latency).
    public var behaviour: StandInBehaviour
    /// Seconds an idle keep-alive connection stays open.
    package var idleTimeoutSeconds: Int

    /// Creates a configuration; by default key `demo` and the 300-film corpus from seed 1 on a free
    /// loopback port.
    public init(
        host: String = "127.0.0.1", port: Int = 0, apiKeys: [String] = ["demo"],
        corpus: FilmCorpus = FilmCorpus(generatedCount: 300, seed: 1),
        behaviour: StandInBehaviour = StandInBehaviour(), idleTimeoutSeconds: Int = 120,
        tmdbTokens: [String] = [defaultTMDbToken]
    ) {
        self.tmdbTokens = tmdbTokens
        self.host = host
        self.port = port
        self.apiKeys = apiKeys
        self.corpus = corpus
        self.behaviour = behaviour
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }

    /// Parses `OMDB_STANDIN_KEYS`-style text (comma-separated, blanks ignored); `demo` when nil or empty.
    public static func apiKeys(fromEnvironmentValue value: String?) -> [String] {
        let keys = (value ?? "").split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
        return keys.isEmpty ? ["demo"] : keys
    }

    /// The TMDb token accepted when none is configured.
    public static let defaultTMDbToken = "tmdb-demo-token"

    /// Parses `TMDB_STANDIN_TOKENS`-style text (comma-separated, blanks ignored); `tmdb-demo-token`
    /// when nil or empty.
    public static func tmdbTokens(fromEnvironmentValue value: String?) -> [String] {
        let tokens = (value ?? "").split(separator: ",").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
        return tokens.isEmpty ? [defaultTMDbToken] : tokens
    }

    /// A short, non-reversible label for a key: its first character or two and its length, e.g. `de…(12)`.
    public static func fingerprint(ofKey key: String) -> String {
        let shown = key.count >= 8 ? 2 : (key.count >= 4 ? 1 : 0)
        return String(key.prefix(shown)) + "…(\(key.count))"
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
