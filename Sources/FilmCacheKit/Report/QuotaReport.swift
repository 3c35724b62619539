import Foundation

/// Renders a key's quota for people (`filmcache quota`), programs (`--json`) and Prometheus (`--prometheus`).
public enum QuotaReport {
    /// Cells the bar chart gives the daily limit.
    package static let chartWidth = 40

    /// The text `filmcache quota` prints; with TMDb calls counted (`tmdb`), their section at the end.
    public static func text(_ s: QuotaStatus, database: String, tmdb: TMDbCallHistory? = nil) -> String {
        let zone = s.today.zone
        let zoneName = zone.name
        let key =
            s.keyFingerprint.map {
                "key \(KeyFingerprint.short($0))" + (s.keyInLedger ? "" : ", not in the ledger yet")
            }
            ?? "no key in the ledger yet"
        var out = "filmcache quota → \(database) (\(key); quota day \(s.today.key), \(zoneName))\n"
        out +=
            TextTable.counts(
                [
                    ("used", s.used, "calls counted today, each before it was sent"),
                    ("limit", s.budget.limit, "OMDb's daily limit for the key"),
                    (
                        "reserve", s.budget.reserve,
                        "\(TextTable.decimal(s.budget.reservePercent))% kept back for the apps sharing the key"
                    ),
                    ("left", s.left, "calls usable today"),
                ], labelWidth: 16) + "\n"
        var times = TextTable([.left, .left])
        if let exhausted = s.exhaustedAt {
            times.add([
                "exhausted at", wallTime(exhausted, zone) + ": OMDb said the limit is reached; no call until the reset",
            ])
        }
        times.add([
            "resets at", wallTime(s.nextReset, zone) + " (in \(ReportTime.span(s.nextReset.timeIntervalSince(s.now))))",
        ])
        times.add(["observed reset", observedReset(s)])
        out += times.text + "\n"
        if !s.otherKeys.isEmpty {
            out +=
                "  other keys in the ledger: \(s.otherKeys.map(KeyFingerprint.short).joined(separator: ", ")) (pick one with --key)\n"
        }

        let cell = Double(s.budget.limit) / Double(chartWidth)
        out += "\ncalls per quota day, last \(s.history.count) (a full bar is the \(s.budget.limit)-call limit,"
        out += " █ = \(TextTable.decimal(cell)) calls; ! = OMDb said the limit is reached)\n"
        var chart = TextTable([.left, .right, .left, .left])
        for day in s.history {
            chart.add([
                day.day, String(day.used), day.exhaustedAt == nil ? "" : "!",
                TextBar.bar(day.used, scale: s.budget.limit, width: chartWidth),
            ])
        }
        out += chart.text + "\n"

        out += "\nruns since \(s.history.first?.day ?? s.today.key)\n"
        if s.runs.isEmpty {
            out += "  none\n"
        } else {
            var runs = TextTable([.left, .right, .right, .right, .right, .left])
            runs.add(["started", "calls", "fetched", "not found", "failed", "outcome"])
            for run in s.runs {
                runs.add([
                    Timestamp.format(run.startedAt), String(run.calls), String(run.fetched), String(run.notFound),
                    String(run.failed), run.outcome ?? "unfinished (running, or killed)",
                ])
            }
            out += runs.text + "\n"
        }
        if let tmdb, !tmdb.isEmpty { out += "\n" + TMDbQuotaReport.text(tmdb) + "\n" }
        return String(out.dropLast())
    }

    /// The observed reset for people: the latest as a wall time, and the spread when there are several.
    static func observedReset(_ s: QuotaStatus) -> String {
        let zone = s.today.zone
        guard let latest = s.latestObservedReset else {
            return "none seen yet (recorded when a run follows a day that ran out)"
        }
        let at = ReportTime.timeOfDay(latest, in: zone) + " " + zone.name
        let on = " on " + ReportTime.day(latest, in: zone)
        guard s.observedResets.count > 1 else { return at + on + ", the first OMDb answer after a day that ran out" }
        let minutes = s.observedResets.map { ReportTime.minuteOfDay($0, in: zone) }.sorted()
        return at + on + " (latest); \(s.observedResets.count) seen, between " + clock(minutes.first ?? 0) + " and "
            + clock(minutes.last ?? 0)
    }

    /// The same facts as JSON (keys sorted; absent instants are `null`).
    public static func json(_ s: QuotaStatus) -> String {
        json(s, tmdb: nil)
    }

    /// The same facts as JSON, with `"tmdb"` only when TMDb calls were counted.
    public static func json(_ s: QuotaStatus, tmdb: TMDbCallHistory?) -> String {
        let zone = s.today.zone
        let document = Document(
            key: s.keyFingerprint.map(KeyFingerprint.short), otherKeys: s.otherKeys.map(KeyFingerprint.short),
            day: s.today.key, timeZone: zone.name,
            used: s.used, limit: s.budget.limit, reserve: s.budget.reserve, reservePercent: s.budget.reservePercent,
            usable: s.budget.usable, left: s.left, exhaustedAt: ReportJSON.instant(s.exhaustedAt),
            resetsAt: Timestamp.format(s.nextReset), observedResetAt: ReportJSON.instant(s.latestObservedReset),
            observedResetTime: s.latestObservedReset.map { ReportTime.timeOfDay($0, in: zone) },
            observedResets: s.observedResets.count,
            history: s.history.map {
                Day(
                    day: $0.day, used: $0.used, limit: $0.dailyLimit, exhaustedAt: ReportJSON.instant($0.exhaustedAt),
                    resetObservedAt: ReportJSON.instant($0.resetObservedAt))
            },
            runs: s.runs.map {
                Run(
                    id: $0.id, startedAt: Timestamp.format($0.startedAt), finishedAt: ReportJSON.instant($0.finishedAt),
                    considered: $0.considered, fresh: $0.fresh, fetched: $0.fetched, notFound: $0.notFound,
                    failed: $0.failed, calls: $0.calls, outcome: $0.outcome)
            }, tmdb: tmdb.flatMap { $0.isEmpty ? nil : TMDbQuotaReport.document($0) })
        return ReportJSON.encode(document)
    }

    /// The quota as Prometheus gauges, labelled with the key's fingerprint.
    package static func metricFamilies(_ s: QuotaStatus) -> [MetricFamily] {
        let labels = s.keyFingerprint.map { ["key": KeyFingerprint.short($0)] } ?? [:]
        func gauge(_ name: String, _ help: String, _ value: Double?) -> MetricFamily {
            MetricFamily(
                name, .gauge, help: help, samples: value.map { [MetricFamily.Sample($0, labels: labels)] } ?? [])
        }
        return [
            gauge(
                "filmcache_quota_used", "OMDb calls counted in the ledger today, each before it was sent.",
                Double(s.used)),
            gauge("filmcache_quota_limit", "OMDb's daily request limit for the key.", Double(s.budget.limit)),
            gauge(
                "filmcache_quota_reserve", "Calls of the daily limit kept back for the apps sharing the key.",
                Double(s.budget.reserve)),
            gauge(
                "filmcache_quota_left", "Calls still usable today: limit less reserve less used (0 once exhausted).",
                Double(s.left)),
            gauge(
                "filmcache_quota_exhausted", "1 when OMDb said the daily limit is reached today, else 0.",
                s.exhaustedAt == nil ? 0 : 1),
            gauge(
                "filmcache_quota_reset_timestamp_seconds",
                "When the quota day turns over (next midnight in the quota time zone), Unix time.",
                s.nextReset.timeIntervalSince1970),
            gauge(
                "filmcache_quota_observed_reset_timestamp_seconds",
                "The latest observed reset (first OMDb answer after a day that ran out), Unix time.",
                s.latestObservedReset?.timeIntervalSince1970),
        ]
    }

    /// `quota --prometheus`: the quota gauges in text format.
    public static func prometheus(_ s: QuotaStatus) -> String {
        MetricFamily.text(metricFamilies(s))
    }

    private static func wallTime(_ instant: Date, _ zone: QuotaZone) -> String {
        ReportTime.day(instant, in: zone) + " " + ReportTime.timeOfDay(instant, in: zone) + " "
            + zone.name
    }

    private static func clock(_ minuteOfDay: Int) -> String {
        let h = minuteOfDay / 60
        let m = minuteOfDay % 60
        return (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
    }

    private struct Document: Encodable {
        @Nullable var key: String?
        var otherKeys: [String]
        var day, timeZone: String
        var used, limit, reserve: Int
        var reservePercent: Double
        var usable, left: Int
        @Nullable var exhaustedAt: String?
        var resetsAt: String
        @Nullable var observedResetAt: String?
        @Nullable var observedResetTime: String?
        var observedResets: Int
        var history: [Day]
        var runs: [Run]
        /// Present only when TMDb calls were counted, so an OMDb-only cache's JSON is unchanged.
        var tmdb: TMDbQuotaReport.Document?
    }

    private struct Day: Encodable {
        var day: String
        var used: Int
        @Nullable var limit: Int?
        @Nullable var exhaustedAt: String?
        @Nullable var resetObservedAt: String?
    }

    private struct Run: Encodable {
        var id: Int
        var startedAt: String
        @Nullable var finishedAt: String?
        var considered, fresh, fetched, notFound, failed, calls: Int
        @Nullable var outcome: String?
    }
}
