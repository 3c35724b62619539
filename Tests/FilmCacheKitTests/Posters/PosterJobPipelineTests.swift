import FilmCacheTestSupport
import Foundation
import Synchronization
import Testing

@testable import FilmCacheKit

/// The poster job across pages: the next pages download while a page is synced and recorded, and
/// no row is recorded before the file it names is whole under its final name.
@Suite struct PosterJobPipelineTests {
    let dir = TemporaryDirectory()
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    /// Three pages: two full ones and part of a third.
    let filmCount = 2 * PosterJob.pageSize + 88

    /// An image host: a JPEG of its own for each film (film 300 + i shows film i's, for i < 20),
    /// 404 for every tenth film; `onRequest` sees each request's count, from 1.
    final class ImageHost: HTTPRequestTransport {
        let images: [String: [UInt8]]
        private let log = Mutex<[String]>([])
        let onRequest: @Sendable (Int) -> Void

        init(films: Int, onRequest: @escaping @Sendable (Int) -> Void = { _ in }) {
            var images: [String: [UInt8]] = [:]
            for number in 1...films where number % 10 != 0 {
                let shown = (301...320).contains(number) ? number - 300 : number
                images[Self.url(number)] =
                    [0xFF, 0xD8, 0xFF, 0xE0] + Array(String(shown).utf8)
                    + Array(repeating: UInt8(shown % 251), count: 512)
            }
            self.images = images
            self.onRequest = onRequest
        }

        static func url(_ number: Int) -> String { "https://img.example/\(PosterJobPipelineTests.id(number)).jpg" }

        func send(_ request: HTTPRequest) async throws(TransportFailure) -> HTTPResponse {
            let count = log.withLock {
                $0.append(request.url)
                return $0.count
            }
            onRequest(count)
            guard let body = images[request.url] else { return HTTPResponse(status: 404, body: []) }
            return HTTPResponse(status: 200, body: body, contentType: "image/jpeg")
        }

        func get(_ url: String) async throws(TransportFailure) -> HTTPResponse {
            try await send(HTTPRequest(url: url))
        }

        /// URLs asked for, in order.
        var requests: [String] { log.withLock { $0 } }
    }

    /// The memory index, checking what it is asked to record: every stored poster's file is in the
    /// store, whole, under the name of its digest. With `awaitLaterPages`, recording a page (but the
    /// last) first waits, up to a deadline, for a request of a film after the page's last one.
    final class CheckingIndex: PosterIndex {
        let inner: MemoryBackend
        let store: PosterStore
        let host: ImageHost
        let awaitLaterPages: Bool
        let lastFilm: String
        private let state = Mutex(State())

        struct State {
            var commits = 0
            /// Commits that saw a later page's request before they returned.
            var overlapped = 0
            var unsound: [String] = []
            /// Pages of due posters read.
            var pageReads = 0
        }

        init(_ inner: MemoryBackend, store: PosterStore, host: ImageHost, awaitLaterPages: Bool, lastFilm: String) {
            self.inner = inner
            self.store = store
            self.host = host
            self.awaitLaterPages = awaitLaterPages
            self.lastFilm = lastFilm
        }

        var seen: State { state.withLock { $0 } }

        func recordPosters(_ outcomes: [PosterOutcome]) async throws(StoreError) {
            for outcome in outcomes {
                guard case .stored(let poster, _, _, _) = outcome.result else { continue }
                let bytes = FileManager.default.contents(atPath: store.path(of: poster.file)).map { [UInt8]($0) }
                if bytes == nil || bytes != host.images[outcome.url] || SHA256.hex(bytes ?? []) != poster.sha256 {
                    state.withLock { $0.unsound.append(outcome.imdbID) }
                }
            }
            if awaitLaterPages, let last = outcomes.map(\.imdbID).max(), last < lastFilm {
                let later = "https://img.example/\(last).jpg"
                let deadline = ContinuousClock.now + .seconds(10)
                var overlapped = false
                while ContinuousClock.now < deadline {
                    if host.requests.contains(where: { $0 > later }) {
                        overlapped = true
                        break
                    }
                    try? await Task.sleep(for: .milliseconds(2))
                }
                if overlapped { state.withLock { $0.overlapped += 1 } }
            }
            state.withLock { $0.commits += 1 }
            try await inner.recordPosters(outcomes)
        }

        func postersDue(after afterID: String, limit: Int, now: Date, revalidateBefore: Date, fetchedSince: Date?)
            async throws(StoreError) -> [PosterDue]
        {
            state.withLock { $0.pageReads += 1 }
            return try await inner.postersDue(
                after: afterID, limit: limit, now: now, revalidateBefore: revalidateBefore, fetchedSince: fetchedSince)
        }

        func posterFileIsReferenced(sha256: String) async throws(StoreError) -> Bool {
            try await inner.posterFileIsReferenced(sha256: sha256)
        }

        func poster(_ imdbID: String) async throws(StoreError) -> PosterEntry? {
            try await inner.poster(imdbID)
        }
    }

    static func id(_ number: Int) -> String { String(format: "tt%07d", number) }

    /// A cache of `filmCount` films, each with its own poster URL.
    func cache() async throws -> MemoryBackend {
        let cache = MemoryBackend(wall: .fixed(now))
        var films: [IMDBFilm] = []
        for number in 1...filmCount {
            var film = SampleFilms.film(Self.id(number), fetchedAt: now)
            film.posterURL = ImageHost.url(number)
            films.append(film)
        }
        try await cache.write(WriteBatch(films: films))
        return cache
    }

    func job(_ index: any PosterIndex, store: PosterStore, host: ImageHost) -> PosterJob {
        var settings = PosterSettings()
        settings.rate = 0
        settings.maxInFlight = 8
        return PosterJob(
            cache: index, store: store, transport: host, settings: settings,
            time: TimeSource(clock: ContinuousClock(), wall: .fixed(now)), logger: SampleFilms.logger)
    }

    /// The files in the store, temporary ones included.
    func storeFiles() -> [String] {
        let root = dir.file("posters")
        let names = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
    }

    @Test func theNextPagesDownloadWhileAPageIsRecordedAndEachRowNamesAWholeFile() async throws {
        let memory = try await cache()
        let host = ImageHost(films: filmCount)
        let store = try PosterStore(root: dir.file("posters"))
        let index = CheckingIndex(memory, store: store, host: host, awaitLaterPages: true, lastFilm: Self.id(filmCount))
        let summary = try await job(index, store: store, host: host).run(stop: WarmStop())

        #expect(summary.due == filmCount && !summary.stopped)
        #expect(summary.gone == filmCount / 10)
        #expect(summary.stored + summary.alreadyHeld == filmCount - filmCount / 10)
        #expect(index.seen.commits == 3, "one commit a page")
        #expect(index.seen.overlapped == 2, "each page but the last is recorded while the next one downloads")
        #expect(index.seen.unsound.isEmpty, "rows recorded before their files were whole: \(index.seen.unsound)")
        #expect(index.seen.pageReads == 3, "a short page is the last: what follows it is not read again")
        let files = storeFiles()
        #expect(files.count == host.images.count - 18, "films 301…319 share the files of films 1…19")
        #expect(!files.contains { $0.hasSuffix(".tmp") })
        for number in [1, 10, 256, 257, 301, 600] {
            let entry = try #require(try await memory.poster(Self.id(number)))
            #expect(entry.status == (number % 10 == 0 ? "gone" : "stored"), "\(Self.id(number))")
        }
        let again = try await job(index, store: store, host: host).run(stop: WarmStop())
        #expect(again.due == 0 && host.requests.count == filmCount, "nothing is due again before its time")
    }

    @Test func aStopMidRunRecordsEveryTransferThatEndedAndStartsNoMore() async throws {
        let memory = try await cache()
        let stop = WarmStop()
        let host = ImageHost(films: filmCount) { count in
            if count == 300 { _ = stop.request(.interrupted) }
        }
        let store = try PosterStore(root: dir.file("posters"))
        let index = CheckingIndex(
            memory, store: store, host: host, awaitLaterPages: false, lastFilm: Self.id(filmCount))
        let summary = try await job(index, store: store, host: host).run(stop: stop)

        #expect(summary.stopped)
        let asked = host.requests.count
        #expect(asked >= 300 && asked < 300 + 8, "no transfer starts after the stop: \(asked)")
        #expect(summary.succeeded == asked)
        var recorded = 0
        for number in 1...filmCount {
            if try await memory.poster(Self.id(number)) != nil { recorded += 1 }
        }
        #expect(recorded == asked, "every transfer that ended is recorded")
        #expect(index.seen.unsound.isEmpty)
    }
}
