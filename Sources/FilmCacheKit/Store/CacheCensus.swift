import Foundation

/// Cache-wide counts for `filmcache stats`: what `films` and `lookups` hold and how fresh it is.
public struct CacheCensus: Sendable, Equatable {
    /// Rows in `films`.
    public var films = 0
    /// Films by OMDb `Type`; rows without one count under `"unknown"`.
    package var filmsByType: [String: Int] = [:]
    /// Films within their TTL and made by the current normalizer.
    public var fresh = 0
    /// Films past their TTL.
    public var stale = 0
    /// Films within their TTL but made by an older normalizer.
    package var upgrades = 0
    /// Films by the freshness policy's age class (which TTL they get).
    package var ageClasses: [FreshnessPolicy.AgeClass: Int] = [:]
    /// Films by how long ago they were fetched, one count per ``ageBuckets`` entry.
    package var fetchedAges: [Int] = Array(repeating: 0, count: CacheCensus.ageBuckets.count)
    /// Films by the normalizer version that made them.
    package var dataVersions: [Int: Int] = [:]
    /// `lookups` rows with OMDb's permanent "not found".
    public var notFound = 0
    /// `lookups` rows of fetches that failed.
    public var failed = 0

    /// An empty census.
    public init() {}

    /// One bar of the age histogram: films fetched less than `upperBound` ago (and no less than the bar before).
    package struct AgeBucket: Sendable, Equatable {
        /// How the bar is labelled, e.g. `"1–7 d"`.
        public var label: String
        /// The exclusive upper bound of the age; `nil` for the last, open bar.
        public var upperBound: TimeInterval?
    }

    /// The histogram's bars: under a day, a week, a month, three months, and older.
    package static let ageBuckets: [AgeBucket] = [
        AgeBucket(label: "< 1 d", upperBound: FreshnessPolicy.day),
        AgeBucket(label: "1–7 d", upperBound: 7 * FreshnessPolicy.day),
        AgeBucket(label: "7–30 d", upperBound: 30 * FreshnessPolicy.day),
        AgeBucket(label: "30–90 d", upperBound: 90 * FreshnessPolicy.day),
        AgeBucket(label: "> 90 d", upperBound: nil),
    ]

    /// The index of the bar a film fetched `age` seconds ago falls in (a fetch in the future counts as new).
    package static func ageBucket(for age: TimeInterval) -> Int {
        ageBuckets.firstIndex { bucket in bucket.upperBound.map { age < $0 } ?? true } ?? ageBuckets.count - 1
    }

    /// Counts one `films` row, judged at `now` by `freshness` as the planner judges it.
    package mutating func add(
        fetchedAt: Date, age title: TitleAge, type: String?, dataVersion: Int, now: Date, freshness: FreshnessPolicy,
        currentDataVersion: Int
    ) {
        films += 1
        filmsByType[type ?? "unknown", default: 0] += 1
        dataVersions[dataVersion, default: 0] += 1
        ageClasses[freshness.ageClass(of: title, at: now), default: 0] += 1
        let age = now.timeIntervalSince(fetchedAt)
        fetchedAges[Self.ageBucket(for: age)] += 1
        switch freshness.judge(
            fetchedAt: fetchedAt, dataVersion: dataVersion, title: title, at: now,
            currentDataVersion: currentDataVersion)
        {
        case .stale: stale += 1
        case .upgrade: upgrades += 1
        case .fresh: fresh += 1
        }
    }
}
