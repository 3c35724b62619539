import FilmCacheKit
import FilmCacheTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing

@testable import FilmCacheServe

/// Plain film requests answered from memory where the server reads them, on a real connection:
/// the same answer as the router's, counted the same, and in the order the requests came.
@Suite struct ServeMemoHitTests {
    static let id = "tt0133093"
    static let other = "tt0111161"

    private static func uri(_ id: String) -> String { "/?apikey=\(ServeFixture.token)&i=\(id)" }

    /// A response's fields but its date, in order.
    private static func fields(_ response: TestResponse) -> [HTTPField] {
        response.headers.filter { $0.name != .date }
    }

    @Test func aHitOnAConnectionIsTheRoutersAnswer() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id, title: "The Matrix") }
        try await ServeFixture.with(upstream) { fixture in
            let hit = try await fixture.app.test(.router) { client in
                let miss = try await client.execute(uri: Self.uri(Self.id), method: .get)
                #expect(miss.headers[HTTPField.Name("X-Cache")!] == "miss")
                return try await client.execute(uri: Self.uri(Self.id), method: .get)
            }
            #expect(hit.headers[HTTPField.Name("X-Cache")!] == "hit")
            try await fixture.app.test(.live) { client in
                for _ in 0..<2 {
                    let live = try await client.execute(uri: Self.uri(Self.id), method: .get)
                    #expect(live.status == .ok)
                    #expect(live.body == hit.body)
                    #expect(Self.fields(live) == Self.fields(hit))
                    #expect(live.headers[.date]?.hasSuffix(" GMT") == true)
                }
                // HEAD takes the route: the length, no body.
                let head = try await client.execute(uri: Self.uri(Self.id), method: .head)
                #expect(head.status == .ok)
                #expect(head.body.readableBytes == 0)
                #expect(head.headers[.contentLength] == "\(hit.body.readableBytes)")
            }
            #expect(upstream.requested == [Self.id])
            // Every request counts toward the film's demand, the miss, the routed hit and the live ones.
            await fixture.engine.demand.flush()
            #expect(try await fixture.store.demand(of: [Self.id]) == [Self.id: 5])
        }
    }

    /// A hit answered where it is read is, byte for byte, the answer the router writes for the same
    /// film (asked with an item a hit does not take), but for its date.
    @Test func aHitIsTheRoutersAnswerByteForByte() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id, title: "The Matrix") }
        try await ServeFixture.with(upstream) { fixture in
            try await fixture.app.test(.router) { client in
                let miss = try await client.execute(uri: Self.uri(Self.id), method: .get)
                #expect(miss.status == .ok)
            }
            let (hit, routed) = try await fixture.app.test(.live) { client in
                try await Self.connected(port: try #require(client.port)) { inbound, outbound in
                    var reader = AnswerReader(inbound)
                    try await outbound.write(ByteBuffer(string: Self.request(Self.id)))
                    #expect(try await reader.films(1) == 1)
                    let hit = reader.text
                    let routed = "GET \(Self.uri(Self.id))&r=json HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    try await outbound.write(ByteBuffer(string: routed))
                    #expect(try await reader.films(1) == 1)
                    return (hit, String(reader.text.dropFirst(hit.count)))
                }
            }
            func undated(_ answer: String) -> String {
                answer.components(separatedBy: "\r\n").filter { !$0.hasPrefix("Date: ") }.joined(separator: "\r\n")
            }
            #expect(hit.hasPrefix("HTTP/1.1 200 OK\r\n"))
            let date = hit.components(separatedBy: "\r\n").first { $0.hasPrefix("Date: ") }
            #expect(date.flatMap { HTTPDate.parse(String($0.dropFirst(6))) } != nil, "\(date ?? "no date")")
            #expect(undated(hit) == undated(routed))
        }
    }

    @Test func aHitReadBehindAnUnansweredRequestIsAnsweredAfterIt() async throws {
        let hold = Latch()
        let upstream = ScriptedUpstream(hold: hold, holding: [Self.id]) { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            // The other film is held in memory (asked through the router in process: no client timeout
            // on a loaded machine).
            try await fixture.app.test(.router) { client in
                let miss = try await client.execute(uri: Self.uri(Self.other), method: .get)
                #expect(miss.status == .ok)
            }
            try await fixture.app.test(.live) { client in
                defer { hold.open() }
                // Both requests in one write: the second, a hit, is read while the first waits on OMDb.
                let received = try await Self.pipelined([Self.id, Self.other], port: try #require(client.port)) {
                    let asked = await eventually { upstream.requested.contains(Self.id) }
                    #expect(asked)
                    hold.open()
                }
                let first = try #require(received.range(of: #""imdbID":"\#(Self.id)""#))
                let second = try #require(received.range(of: #""imdbID":"\#(Self.other)""#))
                #expect(first.lowerBound < second.lowerBound)
            }
        }
    }

    /// With requests pipelined, the end of the first answer starts no head deadline while the second
    /// is still being answered: a miss waiting on OMDb longer than the deadline is not cut off.
    @Test func aPipelinedRequestBeingAnsweredIsNotCutByTheHeadDeadline() async throws {
        let first = "tt0068646"
        let hold = Latch()
        let upstream = ScriptedUpstream(hold: hold, holding: [Self.id]) { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream, headDeadline: .seconds(1)) { fixture in
            try await fixture.app.test(.live) { client in
                defer { hold.open() }
                // Two misses in one write: the first answered as soon as OMDb is asked, the second (read
                // before the first answer ended) held on OMDb for several times the deadline.
                let received = try await Self.pipelined([first, Self.id], port: try #require(client.port)) {
                    let asked = await eventually { upstream.requested.contains(Self.id) }
                    #expect(asked)
                    try await Task.sleep(for: .seconds(3))
                    hold.open()
                }
                #expect(received.contains(#""imdbID":"\#(first)""#))
                #expect(received.contains(#""imdbID":"\#(Self.id)""#), "the held answer never came: \(received)")
            }
        }
    }

    /// Answered where they are read, hits keep a connection alive: its idle timeout counts from
    /// the last of them, as from any answer.
    @Test func hitsKeepAConnectionOpenPastTheIdleTimeout() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream, idleTimeout: .seconds(3)) { fixture in
            try await fixture.app.test(.router) { client in
                let miss = try await client.execute(uri: Self.uri(Self.id), method: .get)
                #expect(miss.status == .ok)
            }
            try await fixture.app.test(.live) { client in
                // 20 hits 0.25 s apart: about 5 s on one connection, past the timeout.
                let answered = try await Self.connected(port: try #require(client.port)) { inbound, outbound in
                    var reader = AnswerReader(inbound)
                    var answered = 0
                    for _ in 0..<20 {
                        try await outbound.write(ByteBuffer(string: Self.request(Self.id)))
                        guard try await reader.films(1) == 1 else { break }
                        answered += 1
                        try await Task.sleep(for: .milliseconds(250))
                    }
                    return answered
                }
                #expect(answered == 20, "hits answered before the connection was closed")
            }
            #expect(upstream.requested == [Self.id])
        }
    }

    /// A request whose body stops coming is cut at the idle timeout, even while its answer waits on
    /// OMDb: only a request read whole is never cut off.
    @Test func aRequestWhoseBodyStopsComingIsClosedAtTheIdleTimeout() async throws {
        let hold = Latch()
        let upstream = ScriptedUpstream(hold: hold, holding: [Self.id]) { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream, idleTimeout: .seconds(2)) { fixture in
            try await fixture.app.test(.live) { client in
                defer { hold.open() }
                let answered = try await Self.connected(port: try #require(client.port)) { inbound, outbound in
                    try await Self.askWithAnUnfinishedBody(length: 10, sending: "abc", on: outbound, upstream: upstream)
                    // OMDb answers after five times the timeout: by then the connection should be long closed.
                    let release = Task {
                        try await Task.sleep(for: .seconds(10))
                        hold.open()
                    }
                    var reader = AnswerReader(inbound)
                    let answered = try await reader.films(1)
                    release.cancel()
                    hold.open()
                    return answered
                }
                #expect(answered == 0, "the answer came on a connection whose request never ended")
            }
        }
    }

    /// An answer sent while the connection's timer waits on a request's body (for the idle
    /// timeout) brings the head deadline back: a connection silent after that answer is closed at
    /// the head deadline, not at the idle timeout.
    @Test func anAnswerAfterABodyWaitBringsTheHeadDeadlineBack() async throws {
        let hold = Latch()
        let upstream = ScriptedUpstream(hold: hold, holding: [Self.id]) { id, _ in ScriptedUpstream.film(id) }
        // The idle timeout is long enough that no wait on a loaded machine (the route, which asks OMDb,
        // runs on the cooperative pool) reaches it before the body's end is sent.
        try await ServeFixture.with(upstream, headDeadline: .seconds(2), idleTimeout: .seconds(600)) { fixture in
            try await fixture.app.test(.live) { client in
                // The answer held is let go whatever happens, or the server's shutdown waits on it for ever.
                defer { hold.open() }
                let silentFor = try await Self.connected(port: try #require(client.port)) { inbound, outbound in
                    try await Self.askWithAnUnfinishedBody(length: 5, sending: "ab", on: outbound, upstream: upstream)
                    // Past the head deadline of the connection's opening, with the request's body unfinished
                    // and its answer held: the timer fires and sets itself for the idle timeout.
                    try await Task.sleep(for: .seconds(3))
                    try await outbound.write(ByteBuffer(string: "cde"))
                    hold.open()
                    var reader = AnswerReader(inbound)
                    #expect(try await reader.films(1) == 1)
                    let answered = ContinuousClock.now
                    // Then nothing more is sent: read until the server closes the connection.
                    #expect(try await reader.films(1) == 0)
                    return answered.duration(to: .now)
                }
                #expect(silentFor < .seconds(60), "closed only at the idle timeout")
            }
        }
    }

    /// Hits are answered where they are read only while the connection can take their answers: a
    /// client that pipelines requests and does not read gets the rest queued behind the router's
    /// answers, which wait for it, and the server stops reading. Answers do not pile up in memory.
    @Test func hitsPipelinedByAClientThatDoesNotReadDoNotPileUp() async throws {
        // Answers of about 4 KB: the sockets' buffers hold a few thousand.
        let title = String(repeating: "x", count: 4_000)
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id, title: title) }
        try await ServeFixture.with(upstream) { fixture in
            try await fixture.app.test(.router) { client in
                let miss = try await client.execute(uri: Self.uri(Self.id), method: .get)
                #expect(miss.status == .ok)
            }
            let sent = 20_000
            let answered = try await fixture.app.test(.live) { client in
                try await Self.connected(port: try #require(client.port)) { _, outbound in
                    let requests = ByteBuffer(string: String(repeating: Self.request(Self.id), count: sent))
                    let writer = Task { try await outbound.write(requests) }
                    defer { writer.cancel() }
                    // Until the count of hits answered stops moving for a second: all of them, or as many
                    // as the connection took.
                    var last = -1
                    while true {
                        let hits = fixture.metrics.outcomes[.hit] ?? 0
                        if hits == last { return hits }
                        last = hits
                        try await Task.sleep(for: .seconds(1))
                    }
                }
            }
            #expect(answered < sent / 2, "hits answered to a client that read none of them: \(answered)")
        }
    }

    /// Sends a request for ``id`` whose body is `length` bytes, of which only `sending` is sent,
    /// and waits until `upstream` is asked for the film.
    private static func askWithAnUnfinishedBody(
        length: Int, sending: String, on outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        upstream: ScriptedUpstream
    ) async throws {
        let head = "GET \(uri(id)) HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(length)\r\n\r\n"
        try await outbound.write(ByteBuffer(string: head + sending))
        let asked = await eventually { upstream.requested.contains(id) }
        #expect(asked)
    }

    /// A request for `id`, whole.
    private static func request(_ id: String) -> String {
        "GET \(uri(id)) HTTP/1.1\r\nHost: localhost\r\n\r\n"
    }

    /// Sends a request for each of `ids` in one write on a new connection to `port`, runs
    /// `meanwhile`, then reads until as many films were answered or the connection closed: what was read.
    private static func pipelined(
        _ ids: [String], port: Int, meanwhile: () async throws -> Void
    ) async throws -> String {
        try await connected(port: port) { inbound, outbound in
            try await outbound.write(ByteBuffer(string: ids.map(request).joined()))
            try await meanwhile()
            var reader = AnswerReader(inbound)
            _ = try await reader.films(ids.count)
            return reader.text
        }
    }

    /// `body` on a new connection to `port`, closed after it.
    ///
    /// The client runs on a thread of its own, not on the cooperative pool: the end-to-end suites,
    /// run beside these, can hold the pool for seconds, and a client held that long would see the
    /// server's deadlines pass between two of its own steps.
    private static func connected<Result: Sendable>(
        port: Int,
        _ body: (NIOAsyncChannelInboundStream<ByteBuffer>, NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws
            -> Result
    ) async throws -> Result {
        try await withTaskExecutorPreference(ClientThread()) {
            let connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            return try await connection.executeThenClose { inbound, outbound in try await body(inbound, outbound) }
        }
    }

    /// A task executor running its jobs in turn on a dispatch queue of its own, off the cooperative pool.
    private final class ClientThread: TaskExecutor {
        private let queue = DispatchQueue(label: "serve-tests.client")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// Reads a connection's answers as text.
    private struct AnswerReader {
        private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
        /// Everything read so far.
        private(set) var text = ""
        /// Films answered in `text` so far.
        private var counted = 0

        init(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>) {
            iterator = inbound.makeAsyncIterator()
        }

        /// Reads until `count` more films were answered or the connection closed: how many were.
        mutating func films(_ count: Int) async throws -> Int {
            let wanted = counted + count
            while total < wanted, let buffer = try await iterator.next() {
                text += String(buffer: buffer)
            }
            let answered = min(total, wanted) - counted
            counted += answered
            return answered
        }

        private var total: Int { text.components(separatedBy: #""Response":"True"}"#).count - 1 }
    }

    @Test func theDateFieldIsRFC9110sFixedForm() {
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1_795_000_000.9)) == "Wed, 18 Nov 2026 11:06:40 GMT")
        // What the parser reads back is the same second.
        #expect(
            HTTPDate.parse(HTTPDate.format(secondsSince1970: 1_795_000_000))
                == Date(timeIntervalSince1970: 1_795_000_000))
    }
}
