import Foundation
import OMDbStandIn
import Testing

/// Keep-alive, concurrency and robustness of the socket layer.
@Suite struct ConnectionTests {
    /// Many requests share one keep-alive connection.
    @Test func manyRequestsShareOneKeepAliveConnection() throws {
        try StandInHarness.withServer { server, port in
            let connection = try RawHTTPConnection(port: port)
            for round in 0..<500 {
                let film = StandInHarness.films[round % StandInHarness.films.count]
                let response = try connection.get("/?apikey=demo&i=\(film.imdbID)")
                #expect(response.body == film.body)
                #expect(response.headers["connection"] == "keep-alive")
            }
            #expect(server.stats().connectionsAccepted == 1)
            #expect(server.requestCount(forKey: "demo") == 500)
        }
    }

    /// `Connection: close` is honoured.
    @Test func connectionCloseIsHonoured() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer { _, port in
            let connection = try RawHTTPConnection(port: port)
            let response = try connection.get("/?apikey=demo&i=\(film.imdbID)", close: true)
            #expect(response.body == film.body)
            #expect(response.headers["connection"] == "close")
            #expect(connection.peerClosed())
        }
    }

    /// An HTTP/1.0 request is answered and its connection closed, unless it asked for keep-alive.
    @Test func http10ClosesUnlessKeepAliveIsAskedFor() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer { _, port in
            let closing = try RawHTTPConnection(port: port)
            try closing.send(raw: "GET /?apikey=demo&i=\(film.imdbID) HTTP/1.0\r\nHost: x\r\n\r\n")
            let closed = try closing.readResponse()
            #expect(closed.body == film.body)
            #expect(closed.headers["connection"] == "close")
            #expect(closing.peerClosed())

            let kept = try RawHTTPConnection(port: port)
            for _ in 0..<2 {
                try kept.send(raw: "GET /?apikey=demo&i=\(film.imdbID) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let response = try kept.readResponse()
                #expect(response.body == film.body)
                #expect(response.headers["connection"] == "keep-alive")
            }
        }
    }

    /// `HEAD` answers the head of `GET`, its full `Content-Length` included, without the body.
    @Test func headAnswersTheHeadWithoutTheBody() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer { _, port in
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest("/?apikey=demo&i=\(film.imdbID)", method: "HEAD")
            try connection.sendRequest("/?apikey=demo&i=\(film.imdbID)")
            // The HEAD answer's declared length is not followed by a body: reading it as a body would
            // swallow the next answer's head, so the second answer is read from the raw bytes after it.
            let head = try connection.readHead()
            #expect(head.status == 200)
            #expect(head.declaredLength == film.body.count)
            #expect(try connection.readResponse().body == film.body)
        }
    }

    /// Pipelined requests are answered in order.
    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let films = Array(StandInHarness.films.prefix(5))
        try StandInHarness.withServer { _, port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(
                raw: films.map { "GET /?apikey=demo&i=\($0.imdbID) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined())
            for film in films {
                #expect(try connection.readResponse().body == film.body)
            }
        }
    }

    /// Thirty-two concurrent keep-alive connections are served.
    @Test func thirtyTwoConcurrentKeepAliveConnectionsAreServed() throws {
        try StandInHarness.withServer { server, port in
            let connections = try (0..<32).map { _ in try RawHTTPConnection(port: port) }
            for round in 0..<20 {
                // Every connection has a request in flight before any answer is read.
                for (index, connection) in connections.enumerated() {
                    let film = StandInHarness.films[(round + index) % StandInHarness.films.count]
                    try connection.sendRequest("/?apikey=demo&i=\(film.imdbID)")
                }
                for (index, connection) in connections.enumerated() {
                    let film = StandInHarness.films[(round + index) % StandInHarness.films.count]
                    #expect(try connection.readResponse().body == film.body)
                }
            }
            #expect(server.stats().connectionsAccepted == 32)
            #expect(server.requestCount(forKey: "demo") == 640)
        }
    }

    /// Parallel clients are all counted.
    @Test func parallelClientsAreAllCounted() throws {
        try StandInHarness.withServer { server, port in
            let failures = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                do {
                    let connection = try RawHTTPConnection(port: port)
                    for round in 0..<100 {
                        let film = StandInHarness.films[(worker * 7 + round) % StandInHarness.films.count]
                        if try connection.get("/?apikey=demo&i=\(film.imdbID)").body != film.body {
                            failures.withLock { $0 += 1 }
                        }
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
            #expect(failures.withLock { $0 } == 0)
            #expect(server.stats().totalRequests == 800)
        }
    }

    /// Clients vanishing mid-request do not hurt the server.
    @Test func clientsVanishingMidRequestDoNotHurtTheServer() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        try StandInHarness.withServer { server, port in
            do {
                let partial = try RawHTTPConnection(port: port)
                try partial.send(raw: "GET /?apikey=demo&i=\(film.imdbID) HTTP/1.1\r\nHo")
            }
            for _ in 0..<20 {
                // Full requests whose answers nobody reads: the server writes into a closed socket.
                let impatient = try RawHTTPConnection(port: port)
                try impatient.send(raw: "GET /?apikey=demo&i=\(film.imdbID) HTTP/1.1\r\nHost: x\r\n\r\n")
            }
            do {
                let garbage = try RawHTTPConnection(port: port)
                try garbage.send(raw: "\u{1}\u{2} nonsense\r\n\r\n")
                #expect(try garbage.readResponse().status == 400)
            }
            let response = try RawHTTPConnection(port: port).get("/?apikey=demo&i=\(film.imdbID)")
            #expect(response.body == film.body)
            #expect(server.port == port)
        }
    }

    /// Stop releases the port and answers no more.
    @Test func stopReleasesThePortAndAnswersNoMore() throws {
        let server = OMDbStandInServer(configuration: StandInConfiguration(corpus: StandInHarness.corpus))
        let port = try server.start()
        let connection = try RawHTTPConnection(port: port)
        #expect(try connection.get("/__standin/stats").status == 200)
        server.stop()
        server.stop()
        #expect(server.port == nil)
        #expect(connection.peerClosed())
        #expect(throws: RawHTTPError.self) { try RawHTTPConnection(port: port) }
    }

    /// A server given another address listens there only; a host that is not an IPv4 address is refused.
    @Test func aServerListensOnTheAddressItIsGivenAndNowhereElse() throws {
        let film = StandInHarness.firstFilm(of: .movie)
        // All of 127.0.0.0/8 is loopback on Linux: 127.0.0.2 is an address of its own without any setup.
        try StandInHarness.withServer(host: "127.0.0.2") { _, port in
            let response = try RawHTTPConnection(host: "127.0.0.2", port: port).get("/?apikey=demo&i=\(film.imdbID)")
            #expect(response.body == film.body)
            #expect(throws: RawHTTPError.self) { try RawHTTPConnection(port: port) }
        }
        for host in ["localhost", "::1", "10.0.0", ""] {
            let server = OMDbStandInServer(configuration: StandInConfiguration(host: host))
            #expect(throws: StandInServerError.self, "\(host)") { _ = try server.start() }
        }
    }
}

/// A lock-protected value for test bookkeeping across threads.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    /// Wraps `value`.
    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access.
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
