import FilmCacheKit
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import FilmCacheServe

/// Memory hits answered on a connection's bytes before NIO's HTTP/1 decoder, in a pipeline of the
/// handlers `serve` puts before its codec: ``RawHits``, the decoder, ``ServeConnection``. What
/// reaches the pipeline's end is what the router would be given.
@Suite struct RawHitsTests {
    static let id = "tt0133093"
    static let other = "tt0111161"

    private static func request(_ id: String, fields: String = "Host: localhost\r\n") -> String {
        "GET /?apikey=\(ServeFixture.token)&i=\(id) HTTP/1.1\r\n\(fields)\r\n"
    }

    /// A fixture with ``id``'s answer in memory, and the pipeline over its engine.
    private static func withPipeline(_ body: (EmbeddedChannel, ServeFixture) throws -> Void) async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            try await fixture.app.test(.router) { client in
                let miss = try await client.execute(uri: "/?apikey=\(ServeFixture.token)&i=\(Self.id)", method: .get)
                #expect(miss.status == .ok)
            }
            let time = TimeSource(clock: ContinuousClock(), wall: fixture.wall.wall)
            let hits = MemoHits(engine: fixture.engine, metrics: fixture.metrics, time: time, maxQuery: 8_192)
            let connection = ServeConnection(headDeadline: .seconds(3_600), idleTimeout: .seconds(3_600))
            let channel = EmbeddedChannel()
            try channel.pipeline.syncOperations.addHandlers([
                RawHits(hits: hits, connection: connection, limit: 24_576, maxFields: 100, maxHitHead: 16_384),
                ByteToMessageHandler(HTTPRequestDecoder()), connection,
            ])
            try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 80)).get()
            try body(channel, fixture)
            _ = try? channel.finish()
        }
    }

    /// The answers written before the decoder, as text.
    private static func answers(_ channel: EmbeddedChannel) throws -> [String] {
        var answers: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { answers.append(String(buffer: buffer)) }
        return answers
    }

    /// The targets of the requests passed on, and whether each ended.
    private static func passedOn(_ channel: EmbeddedChannel) throws -> [String] {
        var parts: [String] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let head): parts.append(head.uri)
            case .body(let body): parts.append("body \(body.readableBytes)")
            case .end: parts.append("end")
            }
        }
        return parts
    }

    /// The end of an answer the router gave, written as the codec writes it.
    private static func endAnswer(_ channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        _ = try channel.readOutbound(as: HTTPServerResponsePart.self)
    }

    @Test func aHitIsAnsweredBeforeTheDecoder() async throws {
        try await Self.withPipeline { channel, fixture in
            let before = fixture.metrics.outcomes[.hit] ?? 0
            try channel.writeInbound(ByteBuffer(string: Self.request(Self.id) + Self.request(Self.id)))
            let answers = try Self.answers(channel)
            #expect(answers.count == 2)
            for answer in answers {
                #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"))
                #expect(answer.contains(#""imdbID":"\#(Self.id)""#))
            }
            #expect(try Self.passedOn(channel).isEmpty)
            #expect(fixture.metrics.outcomes[.hit] == before + 2)
        }
    }

    @Test func aHeadThatComesInPiecesIsAnsweredOnceWhole() async throws {
        try await Self.withPipeline { channel, _ in
            let bytes = Array(Self.request(Self.id, fields: "Host: localhost\r\nConnection: keep-alive\r\n").utf8)
            for piece in [bytes[..<3], bytes[3..<40], bytes[40..<(bytes.count - 1)]] {
                try channel.writeInbound(ByteBuffer(bytes: piece))
                #expect(try Self.answers(channel).isEmpty)
            }
            try channel.writeInbound(ByteBuffer(bytes: bytes.suffix(1)))
            #expect(try Self.answers(channel).count == 1)
            #expect(try Self.passedOn(channel).isEmpty)
        }
    }

    /// A request passed on is answered by the router, later: a hit read after it, in the same read or
    /// a later one, is passed on too, until every request passed on has its answer's end.
    @Test func hitsWaitForTheAnswersOfTheRequestsPassedOn() async throws {
        try await Self.withPipeline { channel, _ in
            let miss = Self.request(Self.other)
            let hit = Self.request(Self.id)
            try channel.writeInbound(ByteBuffer(string: miss + hit))
            #expect(try Self.answers(channel).isEmpty)
            let uri = "/?apikey=\(ServeFixture.token)&i="
            #expect(try Self.passedOn(channel) == [uri + Self.other, "end", uri + Self.id, "end"])
            // The first answer ends: one is still owed.
            try Self.endAnswer(channel)
            try channel.writeInbound(ByteBuffer(string: hit))
            #expect(try Self.passedOn(channel) == [uri + Self.id, "end"])
            #expect(try Self.answers(channel).isEmpty)
            try Self.endAnswer(channel)
            try Self.endAnswer(channel)
            // Every answer has ended: hits are answered here again.
            try channel.writeInbound(ByteBuffer(string: hit))
            #expect(try Self.passedOn(channel).isEmpty)
            #expect(try Self.answers(channel).count == 1)
        }
    }

    /// Requests the router answers whatever they ask (`HEAD`, `Connection: close`) are passed on alone.
    @Test func requestsForTheRouterArePassedOnWhole() async throws {
        try await Self.withPipeline { channel, _ in
            let close = Self.request(Self.id, fields: "Connection: close\r\n")
            let head = "HEAD /?apikey=\(ServeFixture.token)&i=\(Self.id) HTTP/1.1\r\n\r\n"
            try channel.writeInbound(ByteBuffer(string: head + close))
            #expect(try Self.answers(channel).isEmpty)
            #expect(try Self.passedOn(channel).count == 4)
        }
    }

    /// Once the bytes hold something not read here (a request with a body), they are all the decoder's,
    /// hits included, from then on.
    @Test func aRequestWithABodyLeavesTheRestToTheDecoder() async throws {
        try await Self.withPipeline { channel, _ in
            let body = "GET /healthz HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd"
            try channel.writeInbound(ByteBuffer(string: body + Self.request(Self.id)))
            #expect(
                try Self.passedOn(channel) == [
                    "/healthz", "body 4", "end", "/?apikey=\(ServeFixture.token)&i=\(Self.id)", "end",
                ])
            try Self.endAnswer(channel)
            try Self.endAnswer(channel)
            try channel.writeInbound(ByteBuffer(string: Self.request(Self.id)))
            #expect(try Self.passedOn(channel).count == 2)
            #expect(try Self.answers(channel).isEmpty)
        }
    }

    /// After a request that closes the connection, nothing more is answered here: what follows is the
    /// decoder's, which refuses it.
    @Test func nothingIsAnsweredAfterARequestThatClosesTheConnection() async throws {
        try await Self.withPipeline { channel, _ in
            try channel.writeInbound(ByteBuffer(string: Self.request(Self.id, fields: "Connection: close\r\n")))
            #expect(try Self.passedOn(channel).count == 2)
            // Its answer ends before the server closes the connection, and a hit comes meanwhile.
            try Self.endAnswer(channel)
            #expect(throws: HTTPParserError.self) {
                try channel.writeInbound(ByteBuffer(string: Self.request(Self.id)))
            }
            #expect(try Self.answers(channel).isEmpty)
        }
    }

    /// A head kept until the rest comes is kept alone, not with the requests answered before it in
    /// the same read: a client whose every read ends within a head holds no more than a head.
    @Test func onlyTheUnfinishedHeadIsKept() async throws {
        try await Self.withPipeline { channel, _ in
            let raw = try channel.pipeline.syncOperations.handler(type: RawHits.self)
            let request = Array(Self.request(Self.id).utf8)
            var pending: [UInt8] = []
            for round in 0..<2_000 {
                // The rest of the last request, nine whole ones, and the start of the next.
                let bytes = pending + Array(repeating: request, count: 9).joined() + request[..<20]
                pending = Array(request[20...])
                try channel.writeInbound(ByteBuffer(bytes: bytes))
                // The request finished, if any, and the nine.
                #expect(try Self.answers(channel).count == (round == 0 ? 9 : 10))
            }
            #expect(raw.unfinished?.readableBytes == 20)
            #expect((raw.unfinished?.capacity ?? 0) <= 4_096, "\(raw.unfinished?.capacity ?? 0) bytes held")
        }
    }

    /// A head that comes a byte at a time is answered once its last byte comes.
    @Test func aHeadThatComesAByteAtATimeIsAnswered() async throws {
        try await Self.withPipeline { channel, _ in
            for byte in Self.request(Self.id).utf8 { try channel.writeInbound(ByteBuffer(bytes: [byte])) }
            #expect(try Self.answers(channel).count == 1)
            #expect(try Self.passedOn(channel).isEmpty)
        }
    }

    /// A head begun when the client closes its side is the decoder's to judge, as it was before.
    @Test func aHeadBegunWhenTheInputClosesGoesToTheDecoder() async throws {
        try await Self.withPipeline { channel, _ in
            try channel.writeInbound(ByteBuffer(string: "GET /?apikey=\(ServeFixture.token)&i=tt01"))
            channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            #expect(throws: HTTPParserError.self) { try channel.throwIfErrorCaught() }
            #expect(try Self.answers(channel).isEmpty)
        }
    }
}
