import Testing

/// The test parser itself: it must accept what Prometheus accepts and refuse what it refuses,
/// or checking the metrics file with it proves nothing.
@Suite struct PrometheusTextParserTests {
    @Test func readsAValidExpositionWithEscapesSpecialValuesAndTimestamps() throws {
        let text = #"""
            # A free comment.
            # HELP job_up Whether the job is up: a "quoted" \\ backslash\nand a new line.
            # TYPE job_up gauge
            job_up{path="C:\\films",quote="say \"hi\"",line="a\nb",} 1 1700000000000
            job_up{path="/srv"} NaN
            # TYPE job_seconds histogram
            job_seconds_bucket{le="1"} 2
            job_seconds_bucket{le="+Inf"} 3
            job_seconds_sum 4.5e-01
            job_seconds_count 3
            # TYPE job_calls_total counter
            job_calls_total +Inf
            plain_untyped -Inf

            """#
        let families = try PrometheusTextParser.parse(text)
        #expect(families.map(\.name) == ["job_up", "job_seconds", "job_calls_total", "plain_untyped"])
        #expect(families[0].help == "Whether the job is up: a \"quoted\" \\ backslash\nand a new line.")
        #expect(families[0].samples[0].labels == ["path": #"C:\films"#, "quote": #"say "hi""#, "line": "a\nb"])
        #expect(families[0].samples[0].timestamp == 1_700_000_000_000)
        #expect(families[0].samples[1].value.isNaN)
        #expect(
            families[1].samples.map(\.name) == [
                "job_seconds_bucket", "job_seconds_bucket", "job_seconds_sum", "job_seconds_count",
            ])
        #expect(families[1].samples[2].value == 0.45)
        #expect(families[2].samples[0].value == .infinity && families[3].samples[0].value == -.infinity)
        #expect(families[3].type == "untyped")
    }

    @Test(arguments: [
        ("9lives 1\n", "bad metric name"),
        ("a-b 1\n", "bad metric name"),
        ("m{9x=\"1\"} 1\n", "bad label name"),
        ("m{__name=\"1\"} 1\n", "bad label name"),
        ("m{a=1} 1\n", "no quoted value"),
        ("m{a=\"x\\t\"} 1\n", "bad escape"),
        ("m{a=\"x} 1\n", "unterminated"),
        ("m{a=\"1\",a=\"2\"} 1\n", "twice"),
        ("m{a=\"1\"} 1\nm{a=\"1\"} 2\n", "twice"),
        ("m 1\nm 2\n", "twice"),
        ("# HELP m one\n# HELP m two\n", "second HELP"),
        ("# TYPE m gauge\n# TYPE m gauge\n", "second TYPE"),
        ("m 1\n# TYPE m gauge\n", "after its samples"),
        ("# TYPE m gauge\nm 1\nn 1\nm{a=\"b\"} 2\n", "not together"),
        ("# TYPE m meter\n", "unknown type"),
        ("# HELP m bad \\q escape\n", "bad escape"),
        ("m 1,5\n", "bad value"),
        ("m 1 12.5\n", "bad timestamp"),
        ("m 1 2 3\n", "text after"),
        ("m1\n", "no blank"),
        ("m 1", "no newline"),
        ("# TYPE m counter\nm 1\n", "not named _total"),
        ("# TYPE m_total counter\nm_total -1\n", "negative"),
        ("# TYPE m_total gauge\nm_total 1\n", "named like a counter"),
    ])
    func refusesWhatPrometheusRefuses(_ text: String, _ reason: String) {
        #expect {
            try PrometheusTextParser.parse(text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
