import Foundation
import Logging

/// Reads TMDb's changes feed (`/movie/changes`, `/tv/changes`) from the end of the last read to
/// now, in windows of at most 14 days and every page of each, and marks the stored entries it
/// names as changed: the warm then refreshes exactly those before their TTL.
///
/// The feed lists IDs by day, not instant, so each read starts again at the day the last one
/// ended on: an entry changed that day after the last read is never missed (one changed before it
/// may be fetched once more). TMDb documents no retention for the feed; filmcache reads at most
/// ``reach`` back. A cache whose last read is older, or that was never read, lets TTLs decide and
/// starts reading from now; the summary says which.
struct TMDbChangesFeed {
    let caller: TMDbCaller
    let store: any TMDbStore
    let logger: Logger

    /// The longest window TMDb accepts, in days between its start and end dates.
    static let windowDays = 14
    /// How far back a read goes at most.
    static let reach: TimeInterval = Double(reachDays) * 86_400
    /// ``reach`` in days.
    static let reachDays = 90
    /// A feed read this recently is not read again: a second warm the same night spends no call on it
    /// (the next read starts at the day this one ended on, so nothing is missed).
    static let rereadAfter: TimeInterval = 3_600

    /// What a read came to.
    struct Read {
        /// `read`, `recent`, `first-run`, `too-old` or `failed` (``TMDbWarmSummary/feed``).
        var status: String
        /// Stored entries marked changed.
        var marked = 0
    }

    /// Reads the feed through `now` and records how far it got. Throws `TMDbStopped` (a refused
    /// token, the breaker) and the store's errors; a page that cannot be read leaves the progress
    /// where it was, so the next run reads those days again.
    func refresh(at now: Date, stop: WarmStop) async throws -> Read {
        guard let since = try await store.tmdbChangesSyncedThrough() else {
            try await store.setTMDbChangesSynced(through: now)
            logger.info("TMDb's changes feed not read before: TTLs decide this run; the next one reads it")
            return Read(status: "first-run")
        }
        guard now.timeIntervalSince(since) <= Self.reach else {
            try await store.setTMDbChangesSynced(through: now)
            logger.notice(
                "the last TMDb run is older than the changes feed is read back; TTLs decide this run",
                metadata: ["last_read": "\(Timestamp.format(since))", "reach_days": "\(Int(Self.reach / 86_400))"])
            return Read(status: "too-old")
        }
        guard now.timeIntervalSince(since) >= Self.rereadAfter else { return Read(status: "recent") }
        var read = Read(status: "read")
        var start = Self.dayNumber(since)
        let last = Self.dayNumber(now)
        while start <= last {
            let end = min(last, start + Self.windowDays - 1)
            for type in TMDbMediaType.allCases {
                guard let ids = try await ids(of: type, from: start, to: end, stop: stop) else {
                    logger.warning(
                        "TMDb's changes feed could not be read; TTLs decide this run, the next one reads it again",
                        metadata: ["media_type": "\(type.rawValue)", "from": "\(Self.date(start))"])
                    return Read(status: "failed", marked: read.marked)
                }
                read.marked += try await store.markTMDbChanged(ids.map { TMDbRef(type, $0) })
            }
            start = end + 1
        }
        try await store.setTMDbChangesSynced(through: now)
        logger.info(
            "TMDb's changes feed read", metadata: ["since": "\(Timestamp.format(since))", "marked": "\(read.marked)"])
        return read
    }

    /// Every ID of one window, all pages; `nil` when a page could not be read or the run stopped.
    private func ids(of type: TMDbMediaType, from start: Int, to end: Int, stop: WarmStop) async throws -> [Int]? {
        var ids: [Int] = []
        var page = 1
        var pages = 1
        while page <= pages {
            guard !stop.isRequested else { return nil }
            let answer = try await caller.get(
                "/\(type.rawValue)/changes",
                query: [("start_date", Self.date(start)), ("end_date", Self.date(end)), ("page", "\(page)")],
                kind: "changes")
            guard case .ok(let body) = answer, let read = try? TMDbBody.changes(body) else { return nil }
            ids += read.ids
            pages = min(read.totalPages, 1_000)
            page += 1
        }
        return ids
    }

    static func dayNumber(_ instant: Date) -> Int { Int((instant.timeIntervalSince1970 / 86_400).rounded(.down)) }

    static func date(_ dayNumber: Int) -> String {
        TMDbCalendar.day(of: Date(timeIntervalSince1970: Double(dayNumber) * 86_400))
    }
}
