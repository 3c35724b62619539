import Foundation

/// One TMDb request to `filmcache serve`, read from its path and query: which of TMDb's resources
/// it names, what is sent on to TMDb, and the key its answer is kept under.
///
/// The resources answered are those apps read: `/3/find/{external_id}`, `/3/movie/{id}`,
/// `/3/tv/{id}`, `/3/tv/{id}/season/{n}`, `/3/configuration` and `/3/search/multi`, each with any
/// query parameters (`append_to_response`, `language`, `query`, `page`…). The client's token
/// (`api_key`) is never part of the key nor sent on.
package struct TMDbServeRequest: Sendable, Equatable {
    /// The path below TMDb's API base, as ``TMDbEndpoint/request(_:query:)`` takes it: `/movie/550`.
    package var path: String
    /// The query items sent on to TMDb: the client's, its token left out, in byte order of name, then value.
    package var query: [Item]
    /// The answer cache's key: `tmdb /3/movie/550?append_to_response=credits&language=en-US`. Its
    /// `tmdb ` prefix keeps it apart from every key of an OMDb query.
    package var cacheKey: String

    /// One query item.
    package struct Item: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    /// The request for `path` (below the server's root: `/3/movie/550`) with query `items` (decoded),
    /// or `nil` when the path names no resource this cache answers.
    package init?(path: String, items: [(name: String, value: String)]) {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // `/3/movie/550` splits as "", "3", "movie", "550"; a trailing slash adds an empty one.
        guard segments.count >= 3, segments[0].isEmpty, segments[1] == "3" else { return nil }
        if segments.count > 3, segments.last == "" { segments.removeLast() }
        let parts = Array(segments.dropFirst(2))
        guard Self.isAnswered(parts) else { return nil }
        self.path = "/" + parts.joined(separator: "/")
        query =
            items
            .filter { $0.name.lowercased() != Self.tokenName }
            .map { Item(name: $0.name, value: $0.value) }
            .sorted { a, b in
                a.name == b.name
                    ? a.value.utf8.lexicographicallyPrecedes(b.value.utf8)
                    : a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
            }
        var key = "tmdb /3" + self.path
        if !query.isEmpty {
            key +=
                "?"
                + query.map { TMDbEndpoint.encode($0.name) + "=" + TMDbEndpoint.encode($0.value) }
                .joined(separator: "&")
        }
        cacheKey = key
    }

    /// The query item a client's token comes as (TMDb's v3 form).
    package static let tokenName = "api_key"

    /// The query items to send on, as the endpoint takes them.
    package var upstreamQuery: [(String, String)] { query.map { ($0.name, $0.value) } }

    /// Whether the path's segments below `/3` name a resource this cache answers.
    private static func isAnswered(_ parts: [String]) -> Bool {
        switch parts.count {
        case 1: return parts[0] == "configuration"
        case 2:
            switch parts[0] {
            case "movie", "tv": return isNumber(parts[1])
            case "find": return isExternalID(parts[1])
            case "search": return parts[1] == "multi"
            default: return false
            }
        case 4: return parts[0] == "tv" && isNumber(parts[1]) && parts[2] == "season" && isNumber(parts[3])
        default: return false
        }
    }

    /// TMDb's IDs and season numbers: up to ten ASCII digits.
    private static func isNumber(_ text: String) -> Bool {
        (1...10).contains(text.utf8.count) && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// An ID `/find` takes (`tt0137523`, a TVDB number, a Wikidata `Q…`): letters, digits, `._-`.
    private static func isExternalID(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F
            }
    }
}
