import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// A warm against an upstream that echoes the key, in every place an answer can hold it: the body,
/// an error text, the content type, a page that is not OMDb's.
@Suite struct WarmKeyEchoTests {
    let dir = TemporaryDirectory()
    static let key = "Echo7Key4Test"

    /// `text` with its first character as a JSON `\u00XX` escape.
    static func jsonEscaped(_ text: String) -> String {
        String(format: "\\u%04x", text.utf8.first ?? 0) + text.dropFirst()
    }

    /// Warms `ids` through `transport` with the test's key, one request at a time.
    func warm(_ ids: [String], _ transport: ScriptedTransport) async throws -> (WarmSummary, CacheStore) {
        let list = dir.write("list.txt", ids.joined(separator: "\n"))
        var configuration = WarmConfiguration(
            databasePath: dir.file("cache.sqlite"), worklists: [list], apiKey: APIKey(Self.key)!)
        configuration.rate = 0
        configuration.maxInFlight = 1
        configuration.backoff = Backoff(base: .milliseconds(1), cap: .milliseconds(2), maxAttempts: 2)
        let store = try CacheStore(path: configuration.databasePath, logger: SampleFilms.logger)
        let summary = try await WarmJob(
            configuration: configuration, store: SQLiteBackend(store: store), transport: transport,
            time: .system, logger: SampleFilms.logger
        ).run()
        return (summary, store)
    }

    @Test func anEchoedKeyIsNeitherStoredAsAFilmNorKeptInALookupsMessage() async throws {
        let key = Self.key
        let transport = ScriptedTransport { id, _ in
            let film = #"{"Title":"Film \#(id)","Year":"2001","Type":"movie","imdbID":"\#(id)","Response":"True"}"#
            switch id {
            case "tt1000003":
                return ScriptedTransport.error(200, "Something went wrong: apikey=\(key)&i=\(id)")
            case "tt1000004":
                let plot = #"cached from http:\/\/x\/?apikey=\#(Self.jsonEscaped(key))&i=\#(id)"#
                return .success(
                    HTTPResponse(
                        status: 200,
                        body: Array(
                            film.replacingOccurrences(of: "\"Year\"", with: "\"Plot\":\"\(plot)\",\"Year\"").utf8)))
            case "tt1000005":
                return .success(
                    HTTPResponse(
                        status: 200, body: Array(film.utf8), contentType: "application/json; via=/?apikey=\(key)"))
            case "tt1000006":
                let page = "<html><body>Blocked: GET /?apikey=\(Self.jsonEscaped(key))&amp;i=\(id)</body></html>"
                return .success(HTTPResponse(status: 403, body: Array(page.utf8), contentType: "text/html"))
            default:
                return .success(HTTPResponse(status: 200, body: Array(film.utf8)))
            }
        }
        let ids = [1, 3, 4, 5, 6].map { "tt" + String(1_000_000 + $0) }
        let (summary, store) = try await warm(ids, transport)
        #expect(summary.fetched == 1, "only the film that does not echo the key")
        #expect(try store.film("tt1000001") != nil)
        for id in ids.dropFirst() {
            #expect(try store.film(id) == nil, "\(id) is not stored")
            let message = try store.lookup(id)?.message ?? ""
            #expect(!message.lowercased().contains(key.dropFirst().lowercased()), "\(id): \(message)")
        }
        #expect(try store.lookup("tt1000003")?.message?.contains("apikey=***&i=tt1000003") == true)
        for suffix in ["", "-wal"] {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: dir.file("cache.sqlite") + suffix))) ?? Data()
            let text = String(decoding: data.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
            #expect(!text.contains(key.dropFirst().lowercased()), "cache.sqlite\(suffix) holds the key")
        }
    }

    @Test func anErrorTextThatEchoesTheKeyEscapedIsWithheldAndNotTakenForARejectedKey() async throws {
        let key = Self.key
        let transport = ScriptedTransport { id, _ in
            // OMDb's words and the request, the key percent-encoded: masked it cannot be, so withheld whole.
            ScriptedTransport.error(200, "Movie not found! (GET /?apikey=%45\(key.dropFirst())&i=\(id))")
        }
        let (summary, store) = try await warm(["tt1000001", "tt1000002"], transport)
        // Not a rejected key: the withheld text must not read as OMDb's words about the key.
        #expect(summary.failed == 2 && summary.stopReason == nil)
        let message = try store.lookup("tt1000001")?.message ?? ""
        #expect(!message.lowercased().contains(key.dropFirst().lowercased()), "\(message)")
        #expect(message.contains("Movie not found!") || message.contains(SecretEcho.withheld), "\(message)")
    }
}
