import Foundation
import Synchronization
import Testing

@testable import FilmCacheKit

/// TMDb bodies in the shape TMDb answers (the committed fixtures under Golden/TMDb).
enum TMDbFixtures {
    static func body(_ name: String) throws -> [UInt8] {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Golden/TMDb"))
        return Array(try Data(contentsOf: url))
    }
}

/// A TMDb stand-in in process: answers by path from a table the test fills, records every request
/// (URL and headers) and can be told to answer the changes feed.
final class ScriptedTMDb: HTTPRequestTransport {
    struct State {
        var routes: [String: HTTPResponse] = [:]
        var requests: [HTTPRequest] = []
        var changed: [TMDbMediaType: [Int]] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// Answers `path` (below `/3`, no query) with `status` and `body`.
    func route(_ path: String, status: Int = 200, body: [UInt8], retryAfter: String? = nil) {
        state.withLock {
            $0.routes[path] = HTTPResponse(
                status: status, body: body, retryAfter: retryAfter, contentType: "application/json;charset=utf-8")
        }
    }

    /// The changes feed names these IDs on every window.
    func markChanged(_ type: TMDbMediaType, _ ids: [Int]) { state.withLock { $0.changed[type] = ids } }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// Paths asked for, without the base and query.
    var paths: [String] { requests.map { Self.path(of: $0.url) } }

    func forget() { state.withLock { $0.requests = [] } }

    static func path(of url: String) -> String {
        var path = url.components(separatedBy: "?")[0]
        if let range = path.range(of: "/3") { path = String(path[range.upperBound...]) }
        return path
    }

    func get(_ url: String) async throws(TransportFailure) -> HTTPResponse {
        try await send(HTTPRequest(url: url))
    }

    func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
        let path = Self.path(of: request.url)
        return state.withLock { state in
            state.requests.append(request)
            for type in TMDbMediaType.allCases where path == "/\(type.rawValue)/changes" {
                let ids = state.changed[type] ?? []
                let results = ids.map { #"{"id":\#($0),"adult":false}"# }.joined(separator: ",")
                return HTTPResponse(
                    status: 200,
                    body: Array(
                        #"{"results":[\#(results)],"page":1,"total_pages":1,"total_results":\#(ids.count)}"#.utf8))
            }
            if let answer = state.routes[path] { return answer }
            if path.hasPrefix("/find/") {
                return HTTPResponse(status: 200, body: Array(try! TMDbFixtures.body("find-none")))
            }
            return HTTPResponse(status: 404, body: Array(try! TMDbFixtures.body("error-404")))
        }
    }
}
