import Foundation
import Synchronization

@testable import FilmCacheKit

/// A transport that answers from a closure and records every URL it was asked for.
final class ScriptedTransport: HTTPTransport {
    private let answer: @Sendable (_ imdbID: String, _ attempt: Int) -> Result<HTTPResponse, TransportFailure>
    private let log = Mutex<[String]>([])

    init(_ answer: @escaping @Sendable (_ imdbID: String, _ attempt: Int) -> Result<HTTPResponse, TransportFailure>) {
        self.answer = answer
    }

    func get(_ url: String) async throws(TransportFailure) -> HTTPResponse {
        let id = URLComponents(string: url)?.queryItems?.first { $0.name == "i" }?.value ?? ""
        let attempt = log.withLock {
            $0.append(id)
            return $0.filter { $0 == id }.count
        }
        return try answer(id, attempt).get()
    }

    /// IDs requested, in order, repeats included.
    var requested: [String] { log.withLock { $0 } }

    static func film(_ id: String) -> Result<HTTPResponse, TransportFailure> {
        .success(
            HTTPResponse(
                status: 200,
                body: Array(
                    #"{"Title":"Film \#(id)","Year":"2001","Type":"movie","imdbID":"\#(id)","Response":"True"}"#.utf8)))
    }

    static func error(_ status: Int, _ message: String) -> Result<HTTPResponse, TransportFailure> {
        .success(HTTPResponse(status: status, body: Array(#"{"Response":"False","Error":"\#(message)"}"#.utf8)))
    }
}
