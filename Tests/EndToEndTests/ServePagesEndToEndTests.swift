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
            #expect(try serve.get("/quota").status == 401)
            let authorization = "Authorization: Bearer \(ServeProcess.tokens[1])"
            let quota =
                try JSONSerialization.jsonObject(with: try serve.get("/quota", headers: [authorization]).body)
                as? [String: Any]
            #expect(quota?["used"] as? Int == 3)
        }
    }

    /// The dashboard and `/quota` show what apps ask for: they take a client token (Bearer, HTTP
    /// Basic's password, or `apikey` for `/quota`); `/healthz` and `/metrics` stay open.
    @Test func theDashboardAndQuotaTakeAClientTokenWhileHealthAndMetricsStayOpen() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-auth")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
            let token = ServeProcess.tokens[1]
            let basic = Data("anyone:\(token)".utf8).base64EncodedString()
            let wrongBasic = Data("\(token):wrong-token-here".utf8).base64EncodedString()
            for path in ["/", "/quota"] {
                for headers in [[], ["Authorization: Bearer wrong-token-here"], ["Authorization: Basic \(wrongBasic)"]]
                {
                    let refused = try serve.get(path, headers: headers)
                    #expect(refused.status == 401, "\(path) \(headers)")
                    #expect(refused.header("WWW-Authenticate")?.hasPrefix("Basic realm=") == true)
                    #expect(!refused.text.contains("quota-used") && !refused.text.contains("\"used\""))
                }
                for headers in [["Authorization: Bearer \(token)"], ["Authorization: Basic \(basic)"]] {
                    #expect(try serve.get(path, headers: headers).status == 200, "\(path) \(headers)")
                }
            }
            #expect(try serve.get("/quota?apikey=\(token)").status == 200)
            #expect(try serve.get("/quota?apikey=wrong-token-here").status == 401)
            #expect(try serve.get("/healthz").status == 200)
            #expect(try serve.get("/metrics").status == 200)
        }
    }

    /// `HEAD` is answered as `GET` without its body; an HTTP/1.0 request without keep-alive gets
    /// its connection closed after the answer, one with it keeps it.
    @Test func headIsAnsweredAsGetWithoutABodyAndHTTP10ConnectionsAreClosed() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-head")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir))
            let id = ServeEndToEndTests.corpusIDs[0]
            let get = try serve.omdb("i=\(id)")
            #expect(get.status == 200)
            // A raw socket: each request's status line, Content-Length, body bytes, and whether the
            // server closed the connection (waited for up to 30 s where it must, two where it must not).
            let script = """
                import socket, sys
                def ask(request, wait=2):
                    s = socket.create_connection(("127.0.0.1", \(serve.port))); s.settimeout(wait)
                    s.sendall(request.encode()); data = b""; closed = False
                    try:
                        while True:
                            chunk = s.recv(65536)
                            if not chunk:
                                closed = True; break
                            data += chunk
                    except socket.timeout:
                        pass
                    head, _, body = data.partition(b"\\r\\n\\r\\n")
                    lines = head.decode().split("\\r\\n")
                    length = [l.split(":")[1].strip() for l in lines if l.lower().startswith("content-length:")]
                    print(lines[0], length[0] if length else "-", len(body), "closed" if closed else "open")
                ask("HEAD /?apikey=\(ServeProcess.tokens[0])&i=\(id) HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                ask("HEAD /healthz HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
                ask("GET /healthz HTTP/1.0\\r\\n\\r\\n", wait=30)
                ask("GET /healthz HTTP/1.0\\r\\nConnection: keep-alive\\r\\n\\r\\n")
                """
            let run = try ReliabilityProcess.run("/usr/bin/python3", ["-c", script])
            let lines = run.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 4, "\(run.stdout) \(run.stderr)")
            guard lines.count == 4 else { return }
            #expect(lines[0] == "HTTP/1.1 200 OK \(get.body.count) 0 open")
            #expect(lines[1].hasPrefix("HTTP/1.1 200 OK ") && lines[1].hasSuffix(" 0 open"))
            #expect(lines[2].hasPrefix("HTTP/1.1 200 OK ") && lines[2].hasSuffix(" closed"))
            #expect(!lines[2].hasSuffix(" 0 closed"))
            #expect(lines[3].hasSuffix(" open"))
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
            // Demand is written every few seconds: wait (up to a minute) until all ten requests are.
            try waitFor("all ten requests in the demand table", every: 0.1, ifNotMet: .returnFalse) {
                (try? scratch.sqlite("SELECT coalesce(sum(requests), 0) FROM demand")) == "10"
            }
            let browser = try #require(Self.chromium, "no chromium here (Scripts/install-deps.sh installs it)")
            let flags = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(scratch.dir)/chromium"]
            // The dashboard asks for a client token: HTTP Basic, any user, the token as the password.
            let page401 = try ReliabilityProcess.run(browser, flags + ["--dump-dom", serve.base + "/"])
            #expect(!page401.stdout.contains("quota-used"))
            let signedIn =
                serve.base.replacingOccurrences(of: "http://", with: "http://ops:\(ServeProcess.tokens[0])@") + "/"
            let dom = try ReliabilityProcess.run(browser, flags + ["--dump-dom", signedIn])
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
                browser, flags + ["--screenshot=\(shot)", "--window-size=1100,1000", signedIn])
            #expect(screenshot.status == 0)
            let size = (try? FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0
            #expect(size > 10_000, "screenshot at \(shot)")
        }
    }
}
