/// TMDb's families in the warm's metrics file (docs/METRICS.md, "TMDb").
///
/// A warm that read no TMDb and a cache holding nothing of TMDb's write none of them, so the file
/// of an OMDb-only cache is what it always was; once written, the counters stay in every file
/// after, so they never seem to reset.
extension MetricsFile {
    /// The counter families of TMDb, whose totals carry over from the previous file.
    static let tmdbCounterNames: Set<String> = [
        "filmcache_tmdb_calls_total", "filmcache_tmdb_entries_fetched_total", "filmcache_tmdb_rate_limited_total",
    ]

    /// The call kinds every file that has TMDb's counters lists, even at 0, so a rate over them starts at once.
    static let tmdbCallKinds = ["changes", "details", "find"]

    /// TMDb's families for `m`, continuing the counters found in `previous`.
    static func tmdbFamilies(_ m: WarmMetrics, previous: [String: Double]) -> [MetricFamily] {
        let run = m.summary?.tmdb
        let carried = previous.keys.filter { key in tmdbCounterNames.contains { key.hasPrefix($0) } }
        var families: [MetricFamily] = []
        if run != nil || !carried.isEmpty {
            func total(_ name: String, _ labels: [String: String], adding value: Int) -> MetricFamily.Sample {
                MetricFamily.Sample((previous[MetricFamily.series(name, labels)] ?? 0) + Double(value), labels: labels)
            }
            // Kinds an earlier run counted stay listed, so their totals are never dropped.
            let prefix = "filmcache_tmdb_calls_total{kind=\""
            let earlier = carried.filter { $0.hasPrefix(prefix) && $0.hasSuffix("\"}") }.map {
                String($0.dropFirst(prefix.count).dropLast(2))
            }
            var kinds = Set(tmdbCallKinds).union(earlier.filter { !$0.contains("\\") })
            if let run { kinds.formUnion(run.calls.keys) }
            families += [
                MetricFamily(
                    "filmcache_tmdb_calls_total", .counter, help: "TMDb calls by kind, over all runs.",
                    samples: kinds.sorted().map {
                        total("filmcache_tmdb_calls_total", ["kind": $0], adding: run?.calls[$0] ?? 0)
                    }),
                MetricFamily(
                    "filmcache_tmdb_entries_fetched_total", .counter, help: "TMDb entries stored, over all runs.",
                    samples: [total("filmcache_tmdb_entries_fetched_total", [:], adding: run?.fetched ?? 0)]),
                MetricFamily(
                    "filmcache_tmdb_rate_limited_total", .counter,
                    help: "TMDb 429 answers, each of which paused every TMDb request, over all runs.",
                    samples: [total("filmcache_tmdb_rate_limited_total", [:], adding: run?.rateLimited ?? 0)]),
            ]
        }
        if let run {
            func gauge(_ name: String, _ help: String, _ value: Int) -> MetricFamily {
                MetricFamily(name, .gauge, help: help, value: Double(value))
            }
            families += [
                MetricFamily(
                    "filmcache_tmdb_last_run_calls", .gauge, help: "TMDb calls of the latest warm by kind.",
                    samples: Set(tmdbCallKinds).union(run.calls.keys).sorted().map {
                        MetricFamily.Sample(Double(run.calls[$0] ?? 0), labels: ["kind": $0])
                    }),
                gauge("filmcache_tmdb_last_run_fetched", "TMDb entries the latest warm stored.", run.fetched),
                gauge(
                    "filmcache_tmdb_last_run_not_found", "TMDb entries the latest warm got a 404 for.", run.notFound),
                gauge(
                    "filmcache_tmdb_last_run_failed",
                    "TMDb requests of the latest warm that failed after their retries.",
                    run.failed),
                gauge(
                    "filmcache_tmdb_last_run_deferred", "TMDb work due but left for a later run by the latest warm.",
                    run.deferred),
                gauge(
                    "filmcache_tmdb_last_run_rate_limited", "TMDb 429 answers the latest warm got.", run.rateLimited),
                gauge(
                    "filmcache_tmdb_plan_considered", "Distinct worklist IDs the latest warm planned on TMDb.",
                    run.considered),
                gauge(
                    "filmcache_tmdb_plan_fresh",
                    "TMDb entries stored and within their TTL when the latest warm planned.",
                    run.fresh),
            ]
        }
        if let census = m.tmdbCensus {
            families.append(
                MetricFamily(
                    "filmcache_tmdb_entries", .gauge, help: "TMDb entries in the cache by media type.",
                    samples: [
                        MetricFamily.Sample(
                            Double(census.movies), labels: ["media_type": TMDbMediaType.movie.rawValue]),
                        MetricFamily.Sample(Double(census.series), labels: ["media_type": TMDbMediaType.tv.rawValue]),
                    ]))
            families.append(
                MetricFamily(
                    "filmcache_tmdb_not_on_tmdb", .gauge, help: "IMDb IDs TMDb's /find found no entry for.",
                    value: Double(census.notOnTMDb)))
        }
        if let synced = m.tmdbFeedSyncedThrough {
            families.append(
                MetricFamily(
                    "filmcache_tmdb_changes_synced_timestamp_seconds", .gauge,
                    help: "The end of the latest TMDb changes feed window a warm read to the last page, Unix time.",
                    value: synced.timeIntervalSince1970))
        }
        return families
    }
}
