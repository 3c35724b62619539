import FilmCacheKit
import FilmCachePrometheus
import Testing

/// Metric families rendered by swift-prometheus: order, HELP and TYPE lines, number forms.
@Suite struct PrometheusExpositionTests {
    @Test func familiesKeepTheirOrderAndWholeNumbersTheirForm() throws {
        let families = [
            MetricFamily(
                "filmcache_calls_total", .counter, help: "Calls by outcome.",
                samples: [.init(90, labels: ["outcome": "film"]), .init(0, labels: ["outcome": "limit"])]),
            MetricFamily("filmcache_last_run_exit_status", .gauge, help: "Exit status.", value: 75),
            MetricFamily("filmcache_quota_reset", .gauge, help: "Not known yet.", samples: []),
            MetricFamily(
                "filmcache_last_run_duration_seconds", .gauge, help: "How long.",
                samples: [.init(12.5, labels: ["key": "ab12", "host": #"a "b""#])]),
            MetricFamily("filmcache_last_success_timestamp_seconds", .gauge, help: "When.", value: 1_795_228_200),
        ]
        #expect(
            PrometheusExposition.text(families) == #"""
                # HELP filmcache_calls_total Calls by outcome.
                # TYPE filmcache_calls_total counter
                filmcache_calls_total{outcome="film"} 90
                filmcache_calls_total{outcome="limit"} 0
                # HELP filmcache_last_run_exit_status Exit status.
                # TYPE filmcache_last_run_exit_status gauge
                filmcache_last_run_exit_status 75
                # HELP filmcache_last_run_duration_seconds How long.
                # TYPE filmcache_last_run_duration_seconds gauge
                filmcache_last_run_duration_seconds{host="a \"b\"",key="ab12"} 12.5
                # HELP filmcache_last_success_timestamp_seconds When.
                # TYPE filmcache_last_success_timestamp_seconds gauge
                filmcache_last_success_timestamp_seconds 1795228200

                """#)
    }

    @Test func theTextParsesBackToTheSameValues() throws {
        let family = MetricFamily(
            "odd_value", .gauge, help: #"Help with a \ backslash."#,
            samples: [.init(0.25, labels: ["path": #"C:\films"#]), .init(-3, labels: ["path": "line\nbreak"])])
        let parsed = try PrometheusTextParser.parse(PrometheusExposition.text([family]))
        #expect(parsed.first?.help == #"Help with a \ backslash."#)
        #expect(parsed.first?.type == "gauge")
        let values = Dictionary(
            uniqueKeysWithValues: parsed.first?.samples.map { ($0.labels["path"] ?? "", $0.value) } ?? [])
        #expect(values == [#"C:\films"#: 0.25, "line\nbreak": -3])
    }
}
