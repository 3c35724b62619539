import CivilDays
import Foundation
import SplitMix

/// A calendar day in UTC, counted from 1970-01-01, read and written as `YYYY-MM-DD`.
struct TMDbDay: Sendable, Hashable, Comparable {
    /// Days since 1970-01-01.
    var number: Int

    /// Today in UTC by `now` (the wall clock).
    init(date: Date) {
        number = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }

    /// The day `number` days after 1970-01-01.
    init(number: Int) {
        self.number = number
    }

    /// Reads `YYYY-MM-DD`; nil for anything else or a date that does not exist.
    init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        number = CivilDays.days(year: year, month: month, day: day)
        guard self.text == text else { return nil }
    }

    /// `YYYY-MM-DD`.
    var text: String {
        let (year, month, day) = CivilDays.date(days: number)
        let yearText = String(year)
        return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-"
            + (month < 10 ? "0" : "") + "\(month)-" + (day < 10 ? "0" : "") + "\(day)"
    }

    static func < (lhs: TMDbDay, rhs: TMDbDay) -> Bool {
        lhs.number < rhs.number
    }
}

/// Which titles changed on which days, and how often each title changed (its revision), as
/// `POST /__standin/tmdb/changes` marks them and `/movie/changes` and `/tv/changes` list them.
struct TMDbChangesFeed: Sendable {
    /// One title marked changed on one day.
    struct Change: Sendable, Hashable {
        /// The title.
        var title: TMDbTitle
        /// The day.
        var day: TMDbDay
    }

    /// The marks in the order they were made, without repeats.
    private(set) var changes: [Change] = []
    private var known = Set<Change>()
    /// How often each title (by ``TMDbTitle/key``) was marked; kept when the feed is cleared, as
    /// a cleared feed does not undo a change.
    private(set) var revisions: [String: Int] = [:]

    /// Marks `title` changed on `day`: it appears in the feed for windows holding that day, and its
    /// revision goes up by one (every mark, also a repeat of the same day).
    mutating func mark(_ title: TMDbTitle, day: TMDbDay) {
        revisions[title.key, default: 0] += 1
        let change = Change(title: title, day: day)
        if known.insert(change).inserted { changes.append(change) }
    }

    /// Empties the feed; revisions stay.
    mutating func clear() {
        changes = []
        known = []
    }

    /// The revision of `title`: 0 until it is first marked.
    func revision(of title: TMDbTitle) -> Int {
        revisions[title.key] ?? 0
    }

    /// The IDs of titles of `type` changed on a day in `days`, each once, in ID order.
    func ids(of type: TMDbTitle.MediaType, in days: ClosedRange<TMDbDay>) -> [Int] {
        Set(changes.filter { $0.title.mediaType == type && days.contains($0.day) }.map(\.title.id)).sorted()
    }

    /// `count` distinct titles of `catalog` drawn by `seed`: the same seed and catalog give the same titles.
    static func draw(_ count: Int, from catalog: TMDbCatalog, seed: UInt64) -> [TMDbTitle] {
        var generator = SplitMix64(seed: SplitMix64.derive(seed: seed, index: 0x7D_B0))
        return generator.pick(min(count, catalog.titles.count), of: catalog.titles)
    }
}
