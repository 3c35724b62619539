import Foundation

/// Copies a whole cache into another database (`filmcache db copy`), whatever the two backends, and
/// verifies the result by counting.
///
/// Each table (in ``CacheTable`` order) is read from the source in pages of `pageSize` rows by its
/// key, and each page is merged into the target in one transaction, so memory stays flat whatever
/// the cache's size and a copy stopped midway keeps every page it committed; running it again
/// finishes it. The source is only read.
///
/// A film or TMDb entry fetched, or a `serve` answer given, more than ``FreshnessPolicy/clockSkew``
/// after `now` (a source host's clock ran ahead) lands as fetched or given `now`: a future instant
/// would win every newer-wins merge until then.
public struct CacheCopy: Sendable {
    /// Rows a page holds unless told otherwise.
    public static let defaultPageSize = 1_000

    public let source: any CacheTransfer
    public let target: any CacheTransfer
    public var pageSize: Int
    /// This host's clock, read once: films fetched after it (beyond the skew) land as fetched then.
    public var now: Date

    public init(
        from source: any CacheTransfer, to target: any CacheTransfer, pageSize: Int = Self.defaultPageSize,
        now: Date
    ) {
        self.source = source
        self.target = target
        self.pageSize = max(1, pageSize)
        self.now = now
    }

    /// Copies every table, calling `progress` after each page with the table and its rows read so
    /// far (and the source's count, read before); then counts every table again on both sides.
    public func run(progress: (CacheTable, _ read: Int, _ of: Int) -> Void = { _, _, _ in })
        async throws(StoreError) -> [TableCopy]
    {
        var copies: [TableCopy] = []
        for table in CacheTable.allCases {
            let total = try await source.rowCount(table)
            var copy = TableCopy(table: table, targetBefore: try await target.rowCount(table))
            var cursor = TransferCursor.start
            while true {
                var page = try await source.transferPage(table, after: cursor, limit: pageSize)
                guard let next = page.next else { break }
                let latest = now.addingTimeInterval(FreshnessPolicy.clockSkew)
                switch page {
                case .films(var films):
                    for index in films.indices where films[index].lastFetched > latest {
                        films[index].lastFetched = now
                        copy.clamped += 1
                    }
                    page = .films(films)
                case .answers(var answers):
                    for index in answers.indices where answers[index].answeredAt > latest {
                        answers[index].answeredAt = now
                        copy.clamped += 1
                    }
                    page = .answers(answers)
                case .tmdbFilms(var rows):
                    for index in rows.indices where rows[index].film.fetchedAt > latest {
                        rows[index].film.fetchedAt = now
                        copy.clamped += 1
                    }
                    page = .tmdbFilms(rows)
                default:
                    break
                }
                copy.counts += try await target.merge(page, now: now)
                copy.read += page.count
                progress(table, copy.read, total)
                if page.count < pageSize { break }
                cursor = next
            }
            copies.append(copy)
        }
        for index in copies.indices {
            copies[index].sourceCount = try await source.rowCount(copies[index].table)
            copies[index].targetCount = try await target.rowCount(copies[index].table)
        }
        return copies
    }
}

/// What a copy did to one table, and the counts that verify it.
public struct TableCopy: Sendable, Equatable {
    public var table: CacheTable
    /// Rows read from the source.
    public var read = 0
    /// Rows the target lacked (added), held older (updated), or held as they were or newer (kept).
    public var counts = ImportCounts()
    /// Films and TMDb entries whose `fetched_at`, or answers whose `answered_at`, lay in the future,
    /// copied as of the copy's start.
    package var clamped = 0
    /// The target's rows just before the table was copied.
    package var targetBefore: Int
    /// The source's rows, counted again after the copy.
    package var sourceCount = 0
    /// The target's rows, counted after the copy.
    package var targetCount = 0

    public init(table: CacheTable, targetBefore: Int) {
        self.table = table
        self.targetBefore = targetBefore
    }

    /// Why the counts disagree, naming the table; `nil` when they agree: every row read was added,
    /// updated or kept; the source holds what was read; the target holds what it held and what was
    /// added, so at least the source's rows.
    public var mismatch: String? {
        let name = table.rawValue
        if read != sourceCount {
            return "\(name): \(read) rows were read from FROM, which now holds \(sourceCount)"
                + " (was it written during the copy?)"
        }
        if counts.added + counts.updated + counts.kept != read {
            return "\(name): \(read) rows were read and \(counts.added + counts.updated + counts.kept) merged"
        }
        if targetCount != targetBefore + counts.added || targetCount < sourceCount {
            return "\(name): TO holds \(targetCount) rows after the copy; it held \(targetBefore) and"
                + " \(counts.added) were added, of FROM's \(sourceCount)"
        }
        return nil
    }
}
