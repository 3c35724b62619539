import Foundation
import Logging

/// How posters are fetched: their own pace and caps, apart from OMDb's quota (image hosts are not metered).
public struct PosterSettings: Sendable, Equatable {
    /// Requests per second to the image hosts; 0 is unlimited.
    public var rate = Setting.posterRate.default
    /// Transfers at once.
    public var maxInFlight = Setting.posterMaxInFlight.default
    /// A larger poster is refused (and not stored).
    public var maxBytes = Setting.posterMaxBytes.default
    /// A stored poster is revalidated once its last check is this old.
    package var revalidateAfter = Duration.seconds(Setting.posterRevalidateDays.default * 86_400)
    /// A poster that is gone (404, 410) is asked for again after this long.
    package var goneRetryAfter = Duration.seconds(Setting.posterGoneRetryDays.default * 86_400)
    /// The first retry delay of a failed poster; it doubles with each failure in a row, up to a week.
    package var failedRetryAfter: Duration = .seconds(3600)
    /// Hosts whose posters may be fetched from internal addresses (loopback, private, link-local,
    /// unique-local …), by the name the poster URL spells; every other poster host must resolve to
    /// public addresses, on the first request and on every redirect.
    package var allowedHosts: [String] = []

    public init() {}

    /// Where poster requests may connect to.
    var destinations: DestinationPolicy { .publicOnly(allowing: allowedHosts) }

    /// The longest a failed poster waits for its next try.
    static let failedRetryCap: Duration = .seconds(7 * 86_400)
}

/// What a poster run did.
public struct PosterSummary: Sendable, Equatable {
    /// Posters that were due.
    public var due = 0
    /// Posters downloaded and stored as a new file.
    public var stored = 0
    /// Posters downloaded whose bytes the store already held (another film's, or an unchanged 200).
    public var alreadyHeld = 0
    /// Posters revalidated with a 304: no bytes moved.
    public var notModified = 0
    /// Posters the image host no longer has (404, 410).
    public var gone = 0
    /// Bodies refused (not an image, or over the size cap) and requests refused (an internal address).
    public var rejected = 0
    /// Other failures (HTTP status, transport); tried again later.
    public var failed = 0
    /// Body bytes downloaded.
    public var bytes = 0
    /// Whether the run was stopped before every due poster was asked for.
    public var stopped = false
    /// What pruning did, when asked for.
    public var pruned: PosterStore.PruneResult?

    public init() {}

    /// Requests that got an answer the run could use.
    public var succeeded: Int { stored + alreadyHeld + notModified + gone }
}

/// Downloads due posters into a ``PosterStore`` and records each outcome in the cache.
///
/// Due films are read a page at a time in ID order, so memory stays flat however large the
/// cache; each page's outcomes are committed in one transaction once its transfers end, while
/// the next pages download. A file is written (atomically) and synced before the row naming it
/// is committed, so a kill or a power loss leaves at worst files no row names yet (of at most
/// ``pagesHeld`` + 1 pages), which the next run finds held and records.
public struct PosterJob: Sendable {
    let cache: any PosterIndex
    let store: PosterStore
    let transport: any HTTPRequestTransport
    let settings: PosterSettings
    let logger: Logger
    let time: TimeSource

    /// Films read per page.
    static let pageSize = 256

    /// A job recording into `cache` and writing into `store`, fetching through `transport`, paced and
    /// stamped by `time`.
    public init(
        cache: any PosterIndex, store: PosterStore, transport: any HTTPRequestTransport, settings: PosterSettings,
        time: TimeSource, logger: Logger
    ) {
        self.cache = cache
        self.store = store
        self.transport = transport
        self.settings = settings
        self.logger = logger
        self.time = time
    }

    private var now: @Sendable () -> Date { time.wall.now }

    /// Fetches every due poster (only of films fetched at or after `fetchedSince`, when given)
    /// until done or `stop` is requested.
    public func run(fetchedSince: Date? = nil, stop: WarmStop) async throws(PosterJobError) -> PosterSummary {
        var after = ""
        var exhausted = false
        return try await run(stop: stop) { (started, revalidateBefore) throws(StoreError) -> [PosterDue]? in
            guard !exhausted else { return nil }
            let page = try await cache.postersDue(
                after: after, limit: Self.pageSize, now: started, revalidateBefore: revalidateBefore,
                fetchedSince: fetchedSince)
            guard let last = page.last else { return nil }
            after = last.imdbID
            // A short page was read to the end of the films: asking again would pass over the same
            // films after it (every one not due, in a cache where few are) to find none.
            exhausted = page.count < Self.pageSize
            return page
        }
    }

    /// Fetches the posters `pages` names as due, a page at a time, until it has no more or `stop`
    /// is requested: each page's files are synced before its rows are committed in one transaction.
    ///
    /// `pages` gets the run's start and the instant a stored poster last checked before is due
    /// again; it returns the next page (empty when none of it is due) or `nil` when none is left.
    package func run(
        stop: WarmStop, pages: (_ now: Date, _ revalidateBefore: Date) async throws(StoreError) -> [PosterDue]?
    ) async throws(PosterJobError) -> PosterSummary {
        // A local copy: the property itself is not opened to its concrete clock type.
        let clock = time.clock
        return try await run(stop: stop, on: clock, pages: pages)
    }

    /// Pages read and not yet handed to ``commit(_:)``: the one whose transfers start, the ones
    /// before it whose last transfers finish. With the one being committed, a kill loses at most
    /// this many pages' downloads (their files stay, unrecorded, and the next run finds them held).
    static let pagesHeld = 2

    /// A page read, its transfers started in order and their outcomes gathered until it is committed.
    private struct HeldPage {
        let dues: [PosterDue]
        var started = 0
        var finished = 0
        var outcomes: [PosterOutcome] = []
    }

    /// What a child task of a run comes back with.
    private enum Event: Sendable {
        /// A transfer of the page with this number ended (`nil`: the rate gate did not admit it before a stop).
        case fetched(page: Int, (PosterOutcome, Tally)?)
        /// A page was synced and recorded, or why not.
        case committed(PosterJobError?)
    }

    /// The run, paced on `clock`.
    ///
    /// Transfers run back to back across pages: while one page's files are synced and its rows
    /// committed, the next pages download. Pages are committed one at a time, in order, each
    /// once all its transfers ended, and its files are synced before its rows commit.
    private func run<C: Clock<Duration>>(
        stop: WarmStop, on clock: C,
        pages: (_ now: Date, _ revalidateBefore: Date) async throws(StoreError) -> [PosterDue]?
    ) async throws(PosterJobError) -> PosterSummary {
        var summary = PosterSummary()
        let gate: RateGate<C>? = settings.rate > 0 ? RateGate(rate: settings.rate, clock: clock) : nil
        let started = now()
        let revalidateBefore = started.addingTimeInterval(-settings.revalidateAfter.inSeconds)
        let maxInFlight = max(1, settings.maxInFlight)
        // Each failure ends the run once the transfers under way end: a file that could not be
        // written (its poster stays due) or a page that could not be read starts no more transfers,
        // and what was fetched is still recorded; a commit that failed (a sync, the cache) commits nothing more.
        var storeFailure: PosterStoreError?
        var readFailure: StoreError?
        var failure: PosterJobError?
        await withTaskGroup(of: Event.self) { group in
            var held: [HeldPage] = []
            // The number of `held.first`; pages are numbered in the order they are read.
            var firstHeld = 0
            var exhausted = false
            var running = 0
            var committing = false
            var mayStart: Bool { storeFailure == nil && readFailure == nil && failure == nil && !stop.isRequested }
            while true {
                while running < maxInFlight, mayStart {
                    if let last = held.indices.last, held[last].started < held[last].dues.count {
                        let due = held[last].dues[held[last].started]
                        let number = firstHeld + last
                        held[last].started += 1
                        running += 1
                        group.addTask {
                            if let gate {
                                let admitted = (try? await stop.unlessStopped { try await gate.acquire() }) ?? false
                                if !admitted { return .fetched(page: number, nil) }
                            }
                            return .fetched(page: number, await self.fetchOne(due))
                        }
                        continue
                    }
                    guard !exhausted, held.count < Self.pagesHeld else { break }
                    do throws(StoreError) {
                        if let page = try await pages(started, revalidateBefore) {
                            if !page.isEmpty {
                                summary.due += page.count
                                held.append(HeldPage(dues: page))
                            }
                        } else {
                            exhausted = true
                        }
                    } catch {
                        readFailure = error
                    }
                }
                // The oldest page is committed once its transfers ended and no more of it will start.
                if !committing, failure == nil, let first = held.first, first.finished == first.started,
                    first.started == first.dues.count || !mayStart
                {
                    let outcomes = first.outcomes
                    held.removeFirst()
                    firstHeld += 1
                    committing = true
                    group.addTask { .committed(await self.commit(outcomes)) }
                }
                guard let event = await group.next() else { break }
                switch event {
                case .fetched(let number, let result):
                    running -= 1
                    let index = number - firstHeld
                    held[index].finished += 1
                    guard let (outcome, tally) = result else { continue }
                    tally.add(to: &summary)
                    // A file that could not be written is not recorded: the poster stays due.
                    if case .storeFailed(let error) = tally {
                        storeFailure = storeFailure ?? error
                    } else {
                        held[index].outcomes.append(outcome)
                    }
                case .committed(let error):
                    committing = false
                    if let error { failure = failure ?? error }
                }
            }
        }
        summary.stopped = stop.isRequested
        if let failure { throw failure }
        if let readFailure { throw .cache(readFailure) }
        if let storeFailure { throw .posterStore(storeFailure) }
        return summary
    }

    /// Makes the files `outcomes` name durable (one sync of the store), then records every outcome
    /// in one transaction. When the sync fails, only the outcomes that name no file are recorded.
    private func commit(_ outcomes: [PosterOutcome]) async -> PosterJobError? {
        var outcomes = outcomes
        var failure: PosterJobError?
        if outcomes.contains(where: \.storesFile) {
            do {
                try await store.sync()
            } catch {
                outcomes = outcomes.filter { !$0.storesFile }
                failure = .posterStore(error)
            }
        }
        do {
            try await cache.recordPosters(outcomes)
        } catch {
            return .cache(error)
        }
        return failure
    }

    /// Removes store files no film references (see ``PosterStore/prune(isReferenced:now:grace:)``).
    public func prune() async throws(PosterJobError) -> PosterStore.PruneResult {
        let cache = cache
        do {
            return try await store.prune(
                isReferenced: { (sha256) async throws(StoreError) in
                    try await cache.posterFileIsReferenced(sha256: sha256)
                },
                now: now(), grace: 3600)
        } catch {
            throw .cache(error)
        }
    }

    /// How one request counts in the summary.
    enum Tally: Sendable {
        case stored(bytes: Int), alreadyHeld(bytes: Int), notModified, gone, rejected(bytes: Int), failed
        case storeFailed(PosterStoreError)

        func add(to summary: inout PosterSummary) {
            switch self {
            case .stored(let bytes):
                summary.stored += 1
                summary.bytes += bytes
            case .alreadyHeld(let bytes):
                summary.alreadyHeld += 1
                summary.bytes += bytes
            case .notModified: summary.notModified += 1
            case .gone: summary.gone += 1
            case .rejected(let bytes):
                summary.rejected += 1
                summary.bytes += bytes
            case .failed, .storeFailed: summary.failed += 1
            }
        }
    }

    /// One request and what it comes to.
    func fetchOne(_ due: PosterDue) async -> (PosterOutcome, Tally) {
        let url = due.url
        func outcome(_ result: PosterOutcome.Result) -> PosterOutcome {
            PosterOutcome(imdbID: due.imdbID, url: url, checkedAt: now(), result: result)
        }
        let failedRetry = now().addingTimeInterval(
            min(
                Self.doubling(settings.failedRetryAfter, times: due.failures), PosterSettings.failedRetryCap
            ).inSeconds)
        guard url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
            let retry = now().addingTimeInterval(settings.goneRetryAfter.inSeconds)
            return (outcome(.gone("not an http(s) URL", retryAt: retry)), .gone)
        }
        // Revalidate only what the store still holds: a file deleted by hand is fetched whole.
        let held = due.held.flatMap { store.holds($0.file) ? $0 : nil }
        var headers: [String] = []
        if let held {
            if let etag = held.etag { headers.append("If-None-Match: \(etag)") }
            if let lastModified = held.lastModified { headers.append("If-Modified-Since: \(lastModified)") }
        }
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(url: url, headers: headers, maxRedirects: 5, destinations: settings.destinations))
        } catch {
            if case .refused(let refusal) = error {
                let message = "\(refusal); allow the host with \(Self.allowHostSetting(refusal.host))"
                logger.warning("poster refused", metadata: ["imdbID": "\(due.imdbID)", "reason": "\(message)"])
                return (outcome(.failed(message, retryAt: failedRetry)), .rejected(bytes: 0))
            }
            logger.info("poster failed", metadata: ["imdbID": "\(due.imdbID)", "error": "\(error)"])
            if case .bodyTooLarge = error {
                return (outcome(.failed(error.description, retryAt: failedRetry)), .rejected(bytes: 0))
            }
            return (outcome(.failed(error.description, retryAt: failedRetry)), .failed)
        }
        switch response.status {
        case 200:
            switch PosterImage.check(contentType: response.contentType, body: response.body) {
            case .failure(let rejection):
                logger.warning(
                    "poster refused", metadata: ["imdbID": "\(due.imdbID)", "reason": "\(rejection.description)"])
                return (
                    outcome(.failed(rejection.description, retryAt: failedRetry)),
                    .rejected(bytes: response.body.count)
                )
            case .success(let image):
                let stored: StoredPoster
                let created: Bool
                do {
                    (stored, created) = try store.put(response.body, image: image)
                } catch {
                    return (outcome(.failed(error.description, retryAt: failedRetry)), .storeFailed(error))
                }
                let result = PosterOutcome.Result.stored(
                    stored, contentType: response.contentType, etag: response.etag,
                    lastModified: response.lastModified)
                return (outcome(result), created ? .stored(bytes: stored.bytes) : .alreadyHeld(bytes: stored.bytes))
            }
        case 304 where held != nil:
            return (outcome(.notModified(etag: response.etag, lastModified: response.lastModified)), .notModified)
        case 404, 410:
            let retry = now().addingTimeInterval(settings.goneRetryAfter.inSeconds)
            return (outcome(.gone("HTTP \(response.status)", retryAt: retry)), .gone)
        default:
            logger.info("poster failed", metadata: ["imdbID": "\(due.imdbID)", "status": "\(response.status)"])
            return (outcome(.failed("HTTP \(response.status)", retryAt: failedRetry)), .failed)
        }
    }

    /// How an operator allows poster URLs on `host` to reach internal addresses: the flag and the job key.
    static func allowHostSetting(_ host: String) -> String {
        let value = host.contains(":") ? "'\(host)'" : host
        return "--poster-allow-host \(value) (\(JobKey.posterAllowHosts.rawValue) in a job file)"
    }

    /// `base` doubled `times` times, without overflow.
    private static func doubling(_ base: Duration, times: Int) -> Duration {
        base * (1 << min(max(0, times), 20))
    }

    /// How many failures in a row a failed poster's row stands for, read from the delay between
    /// its check and its next attempt: the inverse of the doubling ``fetchOne(_:)`` gives that
    /// delay, for an index that keeps no count of its own. At least 1.
    static func failures(retryDelay: TimeInterval, settings: PosterSettings) -> Int {
        let base = max(1, settings.failedRetryAfter.inSeconds)
        guard retryDelay > base else { return 1 }
        return min(21, Int(log2(retryDelay / base).rounded()) + 1)
    }
}

extension PosterOutcome {
    /// Whether recording this outcome names a file just written.
    fileprivate var storesFile: Bool {
        if case .stored = result { return true }
        return false
    }
}

/// Why a poster run ended early.
public enum PosterJobError: Error, Sendable, CustomStringConvertible {
    /// The cache database could not be read or written.
    case cache(StoreError)
    /// The poster store could not be written (a full disk, permissions).
    case posterStore(PosterStoreError)

    public var description: String {
        switch self {
        case .cache(let error): error.description
        case .posterStore(let error): error.description
        }
    }
}
