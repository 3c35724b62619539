import Foundation
import Testing

/// What `filmcache serve` shows operators: `/metrics`, `/healthz`, `/quota`, the dashboard.
@Suite(.serialized) struct ServePagesEndToEndTests {
    @Test func metricsCountRequestsByOutcomeAndCallsByAnswer() async throws {
        try #require(PythonPrometheusParser.isAvailable, "\(PythonPrometheusParser.missing)")
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-metrics")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
            let ids = Array(ServeEndToEndTests.corpusIDs.prefix(3))
            for id in ids { _ = try serve.omdb("i=\(id)") }  // 3 misses
            for id in ids + ids { _ = try serve.omdb("i=\(id)") }  // 6 hits
            _ = try serve.get("/?apikey=nope-nope-nope&i=\(ids[0])")  // 1 refused
            let families = try PythonPrometheusParser.parse(try serve.get("/metrics").text)
            func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
                families.flatMap(\.samples).first { $0.name == name && $0.labels == labels }
                    .flatMap { Double($0.value) }
            }
            #expect(value("filmcache_serve_requests_total", ["outcome": "hit"]) == 6)
            #expect(value("filmcache_serve_requests_total", ["outcome": "miss"]) == 3)
            #expect(value("filmcache_serve_requests_total", ["outcome": "refused"]) == 1)
            #expect(value("filmcache_serve_upstream_calls_total", ["answer": "200"]) == 3)
            #expect(value("filmcache_serve_request_duration_seconds_count") == 10)
            #expect(value("filmcache_serve_quota_used_calls") == 3)
            #expect(value("filmcache_serve_quota_limit_calls") == 1_000)
            let health = try serve.get("/healthz")
            #expect(health.status == 200)
            #expect(health.text == #"{"status":"ok","films":3}"#)
            let quota = try JSONSerialization.jsonObject(with: try serve.get("/quota").body) as? [String: Any]
            #expect(quota?["used"] as? Int == 3)
        }
    }

    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test func theDashboardRendersInAHeadlessBrowser() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-dashboard")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
            let ids = Array(ServeEndToEndTests.corpusIDs.prefix(4))
            for (index, id) in ids.enumerated() {
                for _ in 0...index { _ = try serve.omdb("i=\(id)") }
            }
            // Demand is written every few seconds; SIGHUP-free: wait for it.
            Thread.sleep(forTimeInterval: 6)
            let browser = try #require(Self.chromium, "no chromium here (Scripts/install-deps.sh installs it)")
            let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(scratch.dir)/chromium"]
            let dom = try ReliabilityProcess.run(browser, flags + ["--dump-dom", serve.base + "/"])
            #expect(dom.status == 0, "\(dom.stderr.suffix(500))")
            let page = dom.stdout
            #expect(page.contains(#"<b id="quota-used">4</b>"#))
            #expect(page.contains(#"<b id="requests-hit">6</b>"#))
            #expect(page.contains(#"<b id="requests-miss">4</b>"#))
            #expect(page.contains(#"<b id="hit-ratio">60.0%</b>"#))
            #expect(page.contains(#"<b id="films">4</b>"#))
            #expect(page.contains(#"id="usage-chart""#))
            #expect(page.contains(#"data-used="4""#))
            // The most requested first: the fourth ID was asked four times.
            let rows = page.components(separatedBy: "<tr><td>").dropFirst().map { $0.prefix(9) }
            #expect(rows.map(String.init) == ids.reversed())
            #expect(!page.contains("http://") && !page.contains("https://"), "no external assets")
            let shot = BuiltBinaries.packageRoot + "/.build/serve-dashboard.png"
            let screenshot = try ReliabilityProcess.run(
                browser, flags + ["--screenshot=\(shot)", "--window-size=1100,1000", serve.base + "/"])
            #expect(screenshot.status == 0)
            let size = (try? FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0
            #expect(size > 10_000, "screenshot at \(shot)")
        }
    }
}
