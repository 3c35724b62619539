import Foundation
import Synchronization
import Testing

@testable import FilmCacheKit

/// The poster job in process: an image host answering from a table, a real store directory, the
/// memory backend as the poster index.
@Suite struct PosterJobMemoryTests {
    let dir = TemporaryDirectory()
    let now = Date(timeIntervalSince1970: 1_795_000_000)

    /// An image host: a JPEG for each URL it knows, 404 for the rest, every request counted.
    final class ImageHost: HTTPRequestTransport {
        let images: [String: [UInt8]]
        private let log = Mutex<[HTTPRequest]>([])

        init(_ images: [String: [UInt8]]) { self.images = images }

        func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
            log.withLock { $0.append(request) }
            guard let body = images[request.url] else { return HTTPResponse(status: 404, body: []) }
            if request.headers.contains(#"If-None-Match: "v1""#) { return HTTPResponse(status: 304, body: []) }
            return HTTPResponse(status: 200, body: body, contentType: "image/jpeg", etag: #""v1""#)
        }

        func get(_ url: String) async throws(TransportFailure) -> HTTPResponse {
            try await send(HTTPRequest(url: url))
        }

        /// Requests made, in order.
        var requests: [HTTPRequest] { log.withLock { $0 } }
    }

    /// A film whose `Poster` is `url`.
    func film(_ id: String, poster url: String?) -> IMDBFilm {
        var film = SampleFilms.film(id, fetchedAt: now)
        film.posterURL = url
        return film
    }

    @Test func postersAreStoredOnceRecordedInTheIndexAndAMissingOneIsGone() async throws {
        let cache = MemoryBackend(wall: .fixed(now))
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 64)
        try await cache.write(
            WriteBatch(films: [
                film("tt0000001", poster: "https://img.example/1.jpg"),
                film("tt0000002", poster: "https://img.example/2.jpg"),
                film("tt0000003", poster: nil),
            ]))
        let host = ImageHost(["https://img.example/1.jpg": jpeg])
        var settings = PosterSettings()
        settings.rate = 0
        let job = PosterJob(
            cache: cache, store: try PosterStore(root: dir.file("posters")), transport: host, settings: settings,
            time: TimeSource(clock: ContinuousClock(), wall: .fixed(now)), logger: SampleFilms.logger)
        let first = try await job.run(stop: WarmStop())
        #expect(first.due == 2 && first.stored == 1 && first.gone == 1)
        let stored = try #require(try await cache.poster("tt0000001"))
        #expect(stored.status == "stored" && stored.bytes == jpeg.count && stored.etag == #""v1""#)
        #expect(FileManager.default.fileExists(atPath: dir.file("posters") + "/" + (stored.file ?? "")))
        #expect(try await cache.poster("tt0000002")?.status == "gone")
        #expect(try await cache.poster("tt0000003") == nil, "a film with no poster has no row")

        let second = try await job.run(stop: WarmStop())
        #expect(second.due == 0 && host.requests.count == 2, "nothing is due again before its time")
    }
}
