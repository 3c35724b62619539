import Foundation

/// TMDb calls counted per UTC day, for `filmcache quota`. TMDb sets no daily quota (it limits the
/// rate instead), so these are counts to watch, not a budget.
public struct TMDbCallHistory: Sendable, Equatable {
    /// One UTC day's calls.
    public struct Day: Sendable, Equatable {
        /// `2026-11-21`.
        public var day: String
        /// Calls by kind (`find`, `details`, `changes`…).
        public var calls: [String: Int]

        /// All calls of the day.
        public var total: Int { calls.values.reduce(0, +) }
    }

    /// Today's UTC day, `2026-11-21`.
    public var today: String
    /// The days with calls counted, oldest first, from `days` days back to today.
    public var days: [Day]

    /// A history from parts already in hand.
    public init(today: String, days: [Day]) {
        self.today = today
        self.days = days
    }

    /// Reads the calls of the last `days` UTC days (today included) from `store` at `now`.
    public static func load(store: any TMDbStore, now: Date, days: Int = 30) async throws(StoreError)
        -> TMDbCallHistory
    {
        let since = TMDbFilmText.day(now.addingTimeInterval(-Double(max(days, 1) - 1) * FreshnessPolicy.day))
        let calls = try await store.tmdbCalls(since: since)
        return TMDbCallHistory(
            today: TMDbFilmText.day(now),
            days: calls.sorted { $0.key < $1.key }.map { Day(day: $0.key, calls: $0.value) }.filter { $0.total > 0 })
    }

    /// Whether any call was counted in the days read.
    public var isEmpty: Bool { days.isEmpty }

    /// Today's calls.
    public var todayCalls: [String: Int] { days.first { $0.day == today }?.calls ?? [:] }
}

/// Renders ``TMDbCallHistory`` as the TMDb section of `filmcache quota` and its `"tmdb"` JSON object.
enum TMDbQuotaReport {
    /// The section, starting with its heading, without a trailing newline.
    static func text(_ h: TMDbCallHistory) -> String {
        let today = h.todayCalls
        var out = "TMDb calls per UTC day (TMDb sets no daily quota; it limits the rate, and warm paces"
        out += " itself by tmdb_rate)\n"
        out += "  today \(h.today): \(today.values.reduce(0, +)) (\(SummaryReport.callsNote(today)))\n"
        var table = TextTable([.left, .right, .left])
        for day in h.days {
            table.add([day.day, String(day.total), SummaryReport.callsNote(day.calls)])
        }
        out += table.text
        return out
    }

    /// The section as JSON.
    static func document(_ h: TMDbCallHistory) -> Document {
        Document(
            today: h.today, todayCalls: h.todayCalls.values.reduce(0, +), todayByKind: h.todayCalls,
            history: h.days.map { Document.Day(day: $0.day, calls: $0.total, byKind: $0.calls) })
    }

    /// The `"tmdb"` object of `quota --json`.
    struct Document: Encodable {
        var today: String
        var todayCalls: Int
        var todayByKind: [String: Int]
        var history: [Day]

        /// One UTC day's calls.
        struct Day: Encodable {
            var day: String
            var calls: Int
            var byKind: [String: Int]
        }
    }
}
