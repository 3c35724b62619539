import Foundation
import Synchronization
import Testing

@testable import FilmCacheKit

/// TMDb's posters end to end in process: a real HTTP server on loopback answering `/configuration`
/// (with the token) and the images (without), libcurl as the transport, a real store directory,
/// the memory backend as TMDb's store and the poster index.
@Suite struct TMDbPosterTests {
    let dir = TemporaryDirectory()
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let token = "eyJhbGciOiJIUzI1NiJ9.test-token-never-sent-to-images"
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 42, count: 256)

    /// An entry whose details name `posterPath`.
    func entry(_ ref: TMDbRef, imdbID: String, poster posterPath: String?) throws -> TMDbFilm {
        let poster = posterPath.map { "\"\($0)\"" } ?? "null"
        let title = ref.mediaType == .movie ? "title" : "name"
        let body = Array(#"{"id":\#(ref.id),"\#(title)":"T","imdb_id":"\#(imdbID)","poster_path":\#(poster)}"#.utf8)
        return try TMDbBody.film(body, ref: ref, fetchedAt: now)
    }

    /// A cache of three TMDb entries (one without a poster, one whose image is missing) and the OMDb
    /// poster row of the film the first shares its IMDb ID with.
    func cache() async throws -> MemoryBackend {
        let cache = MemoryBackend(wall: .fixed(now))
        _ = try await cache.writeTMDb(
            TMDbBatch(films: [
                try entry(TMDbRef(.movie, 550), imdbID: "tt0137523", poster: "/fight.jpg"),
                try entry(TMDbRef(.movie, 551), imdbID: "tt0000551", poster: nil),
                try entry(TMDbRef(.tv, 1399), imdbID: "tt0944947", poster: "/missing.jpg"),
            ]))
        try await cache.recordPosters([
            PosterOutcome(
                imdbID: "tt0137523", url: "https://m.media-amazon.com/x.jpg", checkedAt: now,
                result: .stored(
                    StoredPoster(sha256: String(repeating: "ab", count: 32), file: "ab/ab/omdb.jpg", bytes: 9),
                    contentType: "image/jpeg", etag: nil, lastModified: nil))
        ])
        return cache
    }

    /// The images' base and sizes as the caller reads them from the loopback TMDb.
    func images(_ server: LoopbackHTTPServer, time: TimeSource) async throws(TMDbPosterError) -> TMDbImages {
        let endpoint = try! TMDbEndpoint(baseURL: "http://127.0.0.1:\(server.port)/3", token: TMDbToken(Self.token)!)
        let caller = TMDbCaller(
            endpoint: endpoint, transport: CurlMultiTransport(options: CurlMultiTransport.Options()),
            pacer: TMDbPacer(rate: 0, pauseAfter: 5, stopAfter: 20, coolDown: .seconds(30), time: time),
            backoff: Backoff(base: .milliseconds(1), maxAttempts: 2), time: time, logger: SampleFilms.logger)
        return try await TMDbImages.fetch(caller)
    }

    /// TMDb's `/configuration` (only with the token) and its images.
    static func tmdb(_ request: LoopbackHTTPServer.Request, port: Int) -> LoopbackHTTPServer.Response {
        switch request.path {
        case "/3/configuration":
            guard request.headers.contains("authorization: bearer \(token)".lowercased()) else {
                return .init(status: 401, body: Array(#"{"status_code":7,"status_message":"Invalid API key"}"#.utf8))
            }
            return .init(
                status: 200, contentType: "application/json",
                body: Array(
                    #"{"images":{"secure_base_url":"http://127.0.0.1:\#(port)/t/p/","poster_sizes":["w92","w342","original"]}}"#
                        .utf8))
        case "/t/p/w342/fight.jpg", "/t/p/original/fight.jpg":
            if request.headers.contains(#"if-none-match: "v1""#) { return .init(status: 304, body: []) }
            return .init(status: 200, contentType: "image/jpeg", etag: #""v1""#, body: jpeg)
        default:
            return .init(status: 404, body: Array("not here".utf8))
        }
    }

    func job(_ cache: MemoryBackend, settings: PosterSettings, time: TimeSource) throws -> PosterJob {
        PosterJob(
            cache: cache, store: try PosterStore(root: dir.file("posters")),
            transport: CurlMultiTransport(options: CurlMultiTransport.Options()), settings: settings, time: time,
            logger: SampleFilms.logger)
    }

    var settings: PosterSettings {
        var settings = PosterSettings()
        settings.rate = 0
        settings.allowedHosts = ["127.0.0.1"]
        return settings
    }

    @Test("Posters come from TMDb's image base under keys of their own; the image host never gets the token")
    func postersFromTMDb() async throws {
        let server = try LoopbackHTTPServer(Self.tmdb)
        defer { server.stop() }
        let cache = try await cache()
        let time = TimeSource(clock: ContinuousClock(), wall: .fixed(now))
        let images = try await images(server, time: time)
        #expect(images.secureBaseURL == "http://127.0.0.1:\(server.port)/t/p/")
        try images.check(size: "w342")
        #expect(throws: TMDbPosterError.unknownSize("w343", known: ["w92", "w342", "original"])) {
            try images.check(size: "w343")
        }

        let run = TMDbPosterJob(
            job: try job(cache, settings: settings, time: time), tmdb: cache, images: images, size: "w342")
        let first = try await run.run(stop: WarmStop())
        #expect(first.due == 2 && first.stored == 1 && first.gone == 1, "\(first)")
        let stored = try #require(try await cache.poster("tmdb/w342/movie/550"))
        #expect(stored.status == "stored" && stored.url == "http://127.0.0.1:\(server.port)/t/p/w342/fight.jpg")
        #expect(stored.bytes == Self.jpeg.count && stored.etag == #""v1""#)
        let data = try Data(contentsOf: URL(fileURLWithPath: dir.file("posters") + "/" + (stored.file ?? "")))
        #expect(Array(data) == Self.jpeg)
        #expect(try await cache.poster("tmdb/w342/tv/1399")?.status == "gone")
        #expect(try await cache.poster("tmdb/w342/movie/551") == nil, "an entry with no poster_path has no row")
        let omdb = try #require(try await cache.poster("tt0137523"))
        #expect(omdb.url == "https://m.media-amazon.com/x.jpg" && omdb.file == "ab/ab/omdb.jpg", "OMDb's row untouched")
        #expect(try await cache.posterFileIsReferenced(sha256: SHA256.hex(Self.jpeg)), "prune keeps it")

        let imageRequests = server.requests.filter { $0.path.hasPrefix("/t/p/") }
        #expect(imageRequests.count == 2)
        for request in server.requests where request.path != "/3/configuration" {
            #expect(!request.headers.contains("authorization"), "\(request.path)")
            #expect(!request.raw.contains(Self.token), "\(request.path)")
        }

        let second = try await run.run(stop: WarmStop())
        #expect(second.due == 0 && server.requests.count == 3, "nothing is due again before its time")
    }

    @Test("A stored TMDb poster due again is revalidated: a 304 moves no bytes")
    func revalidation() async throws {
        let server = try LoopbackHTTPServer(Self.tmdb)
        defer { server.stop() }
        let cache = try await cache()
        let time = TimeSource(clock: ContinuousClock(), wall: .fixed(now))
        let images = try await images(server, time: time)
        var settings = settings
        settings.revalidateAfter = .zero
        let run = TMDbPosterJob(
            job: try job(cache, settings: settings, time: time), tmdb: cache, images: images, size: "w342")
        _ = try await run.run(stop: WarmStop())
        let again = try await run.run(stop: WarmStop())
        #expect(again.notModified == 1 && again.stored == 0 && again.alreadyHeld == 0, "\(again)")
        let last = try #require(server.requests.last { $0.path == "/t/p/w342/fight.jpg" })
        #expect(last.headers.contains(#"if-none-match: "v1""#))

        // Another size is another poster, under another key.
        let original = TMDbPosterJob(
            job: try job(cache, settings: settings, time: time), tmdb: cache, images: images, size: "original")
        let other = try await original.run(stop: WarmStop())
        #expect(other.alreadyHeld == 1, "the same bytes, held once")
        #expect(try await cache.poster("tmdb/original/movie/550")?.status == "stored")
    }

    @Test("A refused token stops before any image is asked for, and says so without the token")
    func refusedToken() async throws {
        let server = try LoopbackHTTPServer(Self.tmdb)
        defer { server.stop() }
        let time = TimeSource(clock: ContinuousClock(), wall: .fixed(now))
        let endpoint = try TMDbEndpoint(baseURL: "http://127.0.0.1:\(server.port)/3", token: TMDbToken("wrong-token")!)
        let caller = TMDbCaller(
            endpoint: endpoint, transport: CurlMultiTransport(options: CurlMultiTransport.Options()),
            pacer: TMDbPacer(rate: 0, pauseAfter: 5, stopAfter: 20, coolDown: .seconds(30), time: time),
            backoff: Backoff(base: .milliseconds(1), maxAttempts: 2), time: time, logger: SampleFilms.logger)
        do {
            _ = try await TMDbImages.fetch(caller)
            Issue.record("the refused token was not reported")
        } catch {
            guard case .refused(let why) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(why.contains("Invalid API key") && !why.contains("wrong-token"))
        }
    }

    @Test("A failed poster's row tells how many failures in a row it stands for")
    func failuresFromTheRetryDelay() {
        let settings = PosterSettings()
        let base = settings.failedRetryAfter.inSeconds
        #expect(PosterJob.failures(retryDelay: base, settings: settings) == 1)
        #expect(PosterJob.failures(retryDelay: base * 2, settings: settings) == 2)
        #expect(PosterJob.failures(retryDelay: base * 8, settings: settings) == 4)
    }
}

/// A small HTTP/1.1 server on loopback: one connection at a time, one request a connection,
/// answered from a function and recorded.
final class LoopbackHTTPServer: Sendable {
    struct Request: Sendable {
        var path: String
        /// Header lines, lowercased.
        var headers: [String]
        /// The request as received.
        var raw: String
    }

    struct Response: Sendable {
        var status: Int
        var contentType: String? = nil
        var etag: String? = nil
        var body: [UInt8]
    }

    let port: Int
    private let listener: Int32
    private let log = Mutex<[Request]>([])
    private let done = Mutex(false)

    init(_ answer: @escaping @Sendable (Request, Int) -> Response) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let port = port
        Thread.detachNewThread { [self] in
            while !done.withLock({ $0 }) {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                serve(connection, port: port, answer: answer)
            }
        }
    }

    /// Requests received so far, in order.
    var requests: [Request] { log.withLock { $0 } }

    /// Stops accepting; the accept loop ends.
    func stop() {
        done.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(_ connection: Int32, port: Int, answer: (Request, Int) -> Response) {
        defer { close(connection) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains(subsequence: Array("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received += buffer[0..<count]
        }
        let raw = String(decoding: received, as: UTF8.self)
        let lines = raw.components(separatedBy: "\r\n")
        let path = lines[0].split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        let request = Request(
            path: path, headers: lines.dropFirst().filter { !$0.isEmpty }.map { $0.lowercased() }, raw: raw)
        log.withLock { $0.append(request) }
        let response = answer(request, port)
        var head = "HTTP/1.1 \(response.status) X\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
        if let type = response.contentType { head += "Content-Type: \(type)\r\n" }
        if let etag = response.etag { head += "ETag: \(etag)\r\n" }
        let bytes = Array((head + "\r\n").utf8) + response.body
        _ = FileWrite.all(bytes, to: connection)
    }
}

extension Array where Element == UInt8 {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard count >= subsequence.count else { return false }
        return (0...(count - subsequence.count)).contains {
            self[$0..<($0 + subsequence.count)].elementsEqual(subsequence)
        }
    }
}
