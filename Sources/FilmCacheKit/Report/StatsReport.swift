import Foundation

/// Renders the cache's stats for people (`filmcache stats`) and for programs (`stats --json`).
public enum StatsReport {
    /// Cells the longest bar of a chart gets.
    package static let chartWidth = 30

    /// The text `filmcache stats` prints.
    public static func text(_ s: CacheStats) -> String {
        let c = s.census
        var out = "filmcache stats → \(s.databasePath)"
        out +=
            s.databaseExists
            ? "\n"
            : s.onServer ? " (no filmcache schema yet: an empty cache)\n" : " (no database file yet: an empty cache)\n"
        if s.onServer {
            out += "  " + TextTable.pad("size", to: 12, .left) + size(s.databaseBytes)
            out += ": \(s.databaseBytes) bytes in the cache's tables and indexes on the server\n"
        } else {
            out +=
                "  " + TextTable.pad("file", to: 12, .left) + size(s.fileBytes) + ": database \(s.databaseBytes) bytes"
            out += " + write-ahead log \(s.walBytes) bytes\n"
        }
        out +=
            TextTable.counts(
                [
                    ("films", c.films, "rows"),
                    ("lookups", c.notFound + c.failed, "rows: \(c.notFound) not found, \(c.failed) failed"),
                ], labelWidth: 12) + "\n"

        out += "\nfilms by type\n" + chart(c.filmsByType.sorted { ($1.value, $0.key) < ($0.value, $1.key) }) + "\n"

        let f = s.freshness
        out += "\nfreshness now (TTL \(days(f.ttl)); \(days(f.recentTTL)) when released in the last "
        out += "\(days(f.recentWindow)) or a running series; \(days(f.oldTTL)) when older than \(years(f.oldAfter)))\n"
        out +=
            TextTable.counts(
                [
                    ("fresh", c.fresh, "within their TTL"),
                    ("stale", c.stale, "past their TTL: a warm naming them refreshes them"),
                    ("upgrades", c.upgrades, "within their TTL but made by an older normalizer"),
                    ("  recent", c.ageClasses[.recent] ?? 0, "films on the short TTL"),
                    ("  standard", c.ageClasses[.standard] ?? 0, "films on the standard TTL"),
                    ("  old", c.ageClasses[.old] ?? 0, "films on the long TTL"),
                ], labelWidth: 12) + "\n"

        if let night = s.worklists {
            let p = night.plan
            out += "\nagainst the worklists\n"
            var rows: [(String, Int, String)] = [
                ("considered", p.considered, "distinct IDs"),
                ("fresh", p.fresh, "cached and within their TTL"),
                ("missing", p.missing, "not cached (or a negative answer now due again)"),
                ("stale", p.stale, "cached but past their TTL"),
                ("upgrades", p.upgrades, "made by an older normalizer"),
                ("not found", p.notFoundAwaitingRecheck, "OMDb did not know them; rechecked after their TTL"),
                ("failed", p.failedAwaitingRetry, "waiting for their retry time"),
            ]
            if night.skippedLines > 0 {
                rows.append(("skipped lines", night.skippedLines, "worklist lines that named no ID"))
            }
            out += TextTable.counts(rows, labelWidth: 14) + "\n"
        }

        out += "\nfetched … ago\n"
        out += chart(zip(CacheCensus.ageBuckets, c.fetchedAges).map { ($0.label, $1) }) + "\n"

        out += "\ndata version (current \(s.currentDataVersion))\n"
        let versions = c.dataVersions.sorted { $0.key > $1.key }.map { ("v\($0.key)", $0.value) }
        out += chart(versions) + "\n"
        if let tmdb = s.tmdb { out += "\n" + TMDbStatsReport.text(tmdb) + "\n" }
        return String(out.dropLast())
    }

    /// The same facts as JSON (keys sorted).
    public static func json(_ s: CacheStats) -> String {
        let c = s.census
        let p = s.worklists?.plan
        let document = Document(
            databaseExists: s.databaseExists, fileBytes: s.fileBytes, databaseBytes: s.databaseBytes,
            walBytes: s.walBytes, films: c.films, lookups: c.notFound + c.failed, notFound: c.notFound,
            failed: c.failed, byType: c.filmsByType, fresh: c.fresh, stale: c.stale, upgrades: c.upgrades,
            ageClasses: Dictionary(
                uniqueKeysWithValues: FreshnessPolicy.AgeClass.allCases.map {
                    ($0.rawValue, c.ageClasses[$0] ?? 0)
                }),
            fetchedAge: zip(CacheCensus.ageBuckets, c.fetchedAges).map {
                AgeBar(bucket: $0.label, belowDays: $0.upperBound.map { $0 / FreshnessPolicy.day }, films: $1)
            },
            dataVersions: Dictionary(uniqueKeysWithValues: c.dataVersions.map { (String($0.key), $0.value) }),
            currentDataVersion: s.currentDataVersion,
            worklists: p.map {
                Coverage(
                    considered: $0.considered, fresh: $0.fresh, missing: $0.missing, stale: $0.stale,
                    upgrades: $0.upgrades, notFoundAwaitingRecheck: $0.notFoundAwaitingRecheck,
                    failedAwaitingRetry: $0.failedAwaitingRetry, skippedLines: s.worklists?.skippedLines ?? 0)
            }, tmdb: s.tmdb.map(TMDbStatsReport.document))
        return ReportJSON.encode(document)
    }

    /// Rows of label, count and a bar scaled to the largest count.
    private static func chart(_ rows: [(String, Int)]) -> String {
        guard !rows.isEmpty else { return "  none" }
        let top = rows.map(\.1).max() ?? 0
        return TextTable(
            [.left, .right, .left],
            rows: rows.map { [$0.0, String($0.1), TextBar.bar($0.1, scale: top, width: chartWidth)] }
        ).text
    }

    private static func days(_ interval: TimeInterval) -> String {
        TextTable.decimal(interval / FreshnessPolicy.day) + " d"
    }

    private static func years(_ interval: TimeInterval) -> String {
        TextTable.decimal(interval / (365.25 * FreshnessPolicy.day)) + " years"
    }

    /// Bytes for people, in binary units.
    static func size(_ bytes: Int) -> String {
        var value = Double(bytes)
        for unit in ["B", "KiB", "MiB", "GiB"] {
            if value < 1024 || unit == "GiB" {
                return unit == "B" ? "\(bytes) B" : String(format: "%.1f", value) + " " + unit
            }
            value /= 1024
        }
        return "\(bytes) B"
    }

    private struct Document: Encodable {
        var databaseExists: Bool
        var fileBytes, databaseBytes, walBytes: Int
        var films, lookups, notFound, failed: Int
        var byType: [String: Int]
        var fresh, stale, upgrades: Int
        var ageClasses: [String: Int]
        var fetchedAge: [AgeBar]
        var dataVersions: [String: Int]
        var currentDataVersion: Int
        @Nullable var worklists: Coverage?
        /// Present only when the cache holds TMDb data, so an OMDb-only cache's JSON is unchanged.
        var tmdb: TMDbStatsReport.Document?
    }

    private struct AgeBar: Encodable {
        var bucket: String
        @Nullable var belowDays: Double?
        var films: Int
    }

    private struct Coverage: Encodable {
        var considered, fresh, missing, stale, upgrades, notFoundAwaitingRecheck, failedAwaitingRetry: Int
        var skippedLines: Int
    }
}
