import Foundation
import OMDbStandIn
import Testing

@testable import FilmCacheKit

/// The libcurl multi transport against a real stand-in server on loopback.
@Suite struct CurlMultiTransportTests {
    static let corpus = FilmCorpus(generatedCount: 40, seed: 3)
    static let ids = (0..<40).map { CorpusGenerator(seed: 3).imdbID(at: $0) }

    func withServer<T>(
        _ behaviour: StandInBehaviour = StandInBehaviour(), _ body: (OMDbStandInServer, String) async throws -> T
    ) async throws -> T {
        let server = OMDbStandInServer(
            configuration: StandInConfiguration(apiKeys: ["k"], corpus: Self.corpus, behaviour: behaviour))
        let port = try server.start()
        defer { server.stop() }
        return try await body(server, "http://127.0.0.1:\(port)/?apikey=k&i=")
    }

    func transport(maxInFlight: Int = 4, configure: (inout CurlMultiTransport.Options) -> Void = { _ in })
        -> CurlMultiTransport
    {
        var options = CurlMultiTransport.Options()
        options.maxInFlight = maxInFlight
        configure(&options)
        return CurlMultiTransport(options: options)
    }

    @Test func manyConcurrentRequestsReuseAFewConnections() async throws {
        try await withServer { server, base in
            let transport = transport(maxInFlight: 4)
            defer { transport.shutdown() }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for round in 0..<5 {
                    for id in Self.ids { group.addTask { try await transport.get(base + id + "&r=\(round)").status } }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 })
            #expect(server.requestCount(forKey: "k") == 200)
            #expect(server.stats().connectionsAccepted <= 4, "keep-alive: at most one connection per slot")
        }
    }

    @Test func aRequestThatRefusesInternalAddressesNeverReachesLoopbackNotEvenOnAReusedConnection() async throws {
        try await withServer { server, base in
            let transport = transport(maxInFlight: 1)
            defer { transport.shutdown() }
            let url = base + Self.ids[0]
            // An OMDb call may go anywhere; it leaves a keep-alive connection to 127.0.0.1 open.
            let open = try await transport.send(HTTPRequest(url: url))
            #expect(open.status == 200)
            let refusing = HTTPRequest(url: url, destinations: .publicOnly(allowing: ["localhost"]))
            for _ in 0..<2 {
                do {
                    let response = try await transport.send(refusing)
                    Issue.record("fetched with status \(response.status)")
                } catch {
                    #expect(
                        error as? TransportFailure
                            == .refused(DestinationRefusal(host: "127.0.0.1", address: "127.0.0.1", range: .loopback))
                    )
                }
            }
            #expect(server.requestCount(forKey: "k") == 1, "no refused request was sent")
            // The host as written is allowed: the same connection serves it.
            let allowed = HTTPRequest(url: url, destinations: .publicOnly(allowing: ["127.0.0.1"]))
            let served = try await transport.send(allowed)
            #expect(served.status == 200)
            #expect(server.requestCount(forKey: "k") == 2)
        }
    }

    @Test func bodyIsReturnedByteForByte() async throws {
        try await withServer { _, base in
            let transport = transport()
            defer { transport.shutdown() }
            let response = try await transport.get(base + Self.ids[0])
            #expect(response.status == 200)
            #expect(response.body == CorpusGenerator(seed: 3).film(at: 0).body)
        }
    }

    @Test func aBodyOverTheCapIsAnErrorNotAnAllocation() async throws {
        try await withServer { _, base in
            let transport = transport { $0.maxBodyBytes = 200 }
            defer { transport.shutdown() }
            await #expect(throws: TransportFailure.bodyTooLarge(limit: 200)) {
                try await transport.get(base + Self.ids[0])
            }
        }
    }

    @Test func slowAnswersTimeOut() async throws {
        try await withServer(StandInBehaviour(latencyMilliseconds: 1500)) { _, base in
            let transport = transport { $0.totalTimeout = .milliseconds(300) }
            defer { transport.shutdown() }
            await #expect(throws: TransportFailure.timeout) { try await transport.get(base + Self.ids[0]) }
        }
    }

    @Test func resetsAndTruncatedBodiesAreTransportFailures() async throws {
        try await withServer(StandInBehaviour(faultRate: 1, faults: [.reset])) { _, base in
            let transport = transport()
            defer { transport.shutdown() }
            await #expect(throws: TransportFailure.connectionReset) { try await transport.get(base + Self.ids[0]) }
        }
        try await withServer(StandInBehaviour(faultRate: 1, faults: [.truncate])) { _, base in
            let transport = transport()
            defer { transport.shutdown() }
            await #expect(throws: TransportFailure.truncated) { try await transport.get(base + Self.ids[0]) }
        }
    }

    @Test func retryAfterHeaderIsCaptured() async throws {
        try await withServer(StandInBehaviour(faultRate: 1, faults: [.tooManyRequestsRetryAfter])) { _, base in
            let transport = transport()
            defer { transport.shutdown() }
            let response = try await transport.get(base + Self.ids[0])
            #expect(response.status == 429)
            #expect(response.retryAfter == "1")
        }
    }

    @Test func nothingListeningIsConnectFailed() async throws {
        let transport = transport()
        defer { transport.shutdown() }
        await #expect {
            try await transport.get("http://127.0.0.1:9/?i=tt0000001")
        } throws: { error in
            if case .connectFailed = error as? TransportFailure { return true }
            return false
        }
    }
}
