import Foundation
import Testing

/// Poster URLs (and redirects) that lead to internal addresses, fetched by the built `filmcache`:
/// refused after name resolution unless the host, as the URL spells it, is allowed.
@Suite(.serialized) struct PosterAddressEndToEndTests {
    let scratch: ReliabilityScratch
    var db: String { scratch.db }
    var store: String { scratch.dir + "/posters" }
    let environment = ["OMDB_API_KEY": "test-key-e2e"]

    init() throws {
        scratch = try ReliabilityScratch("poster-addresses")
    }

    /// Warms `count` generated films from a stand-in serving their posters on 127.0.0.1; returns
    /// it and each film's poster URL by ID. The warm's own OMDb calls go to loopback and are never refused.
    func warmed(_ count: Int, posters extra: [String] = []) throws -> (StandInProcess, [(id: String, url: String)]) {
        let standIn = try StandInProcess(arguments: ["--generate", "\(count + 10)", "--posters"], corpus: nil)
        let worklist = try scratch.worklist("ids.txt", GeneratedIDs.first(count))
        let out = try BuiltBinaries.run(
            "filmcache", ["warm", "--db", db, "--base-url", standIn.baseURL, "--rate", "0", worklist] + extra,
            environment: environment)
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        let rows = try scratch.column(
            "SELECT imdb_id || ' ' || poster_url FROM films WHERE poster_url IS NOT NULL ORDER BY imdb_id")
        let urls = rows.map { row in
            let parts = row.split(separator: " ", maxSplits: 1)
            return (id: String(parts[0]), url: String(parts[1]))
        }
        #expect(urls.count >= 8, "the generated films carry posters: \(rows)")
        return (standIn, urls)
    }

    func posters(_ extra: [String] = [], environment: [String: String] = [:]) throws -> BuiltBinaries.Output {
        try BuiltBinaries.run(
            "filmcache", ["posters", "--db", db, "--store", store, "--poster-rate", "0"] + extra,
            environment: environment)
    }

    /// Points film `id`'s poster at `url`.
    func setPoster(_ id: String, _ url: String) throws {
        _ = try scratch.sqlite("UPDATE films SET poster_url = '\(url)' WHERE imdb_id = '\(id)'")
    }

    /// The poster row of `id`: its status and message.
    func poster(_ id: String) throws -> String {
        try scratch.sqlite("SELECT status || ' ' || coalesce(message, '') FROM posters WHERE imdb_id = '\(id)'")
    }

    /// Regular files under the store.
    func storedFiles() -> [String] {
        (FileManager.default.enumerator(atPath: store)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".jpg") }
    }

    /// The stand-in's count of poster requests.
    func posterRequests(_ standIn: StandInProcess) throws -> Int {
        (try standIn.stats()["posters"] as? [String: Int])?["requests"] ?? -1
    }

    /// The environment of a run `days` ahead, so that the posters failed by earlier runs are due again
    /// (a failed poster waits an hour, doubling with each failure).
    static func after(days: Int) -> [String: String] {
        ["FILMCACHE_NOW": ISO8601DateFormatter().string(from: Date().addingTimeInterval(Double(days) * 86_400))]
    }

    @Test func postersOnLoopbackAreRefusedAndRecordedUntilTheHostIsAllowed() throws {
        let (standIn, urls) = try warmed(12, posters: ["--posters", store])
        #expect(try scratch.sqlite("SELECT count(*) FROM films") == "12", "OMDb calls to loopback are not refused")
        #expect(try posterRequests(standIn) == 0, "not one poster request reached the stand-in")
        #expect(storedFiles().isEmpty)
        for (id, _) in urls {
            #expect(
                try poster(id)
                    == "failed refused to connect to 127.0.0.1, a loopback address; allow the host with"
                    + " --poster-allow-host 127.0.0.1 (poster_allow_hosts in a job file)")
        }

        // A run of its own says the same, exits 0 (the run goes on) and counts them as refused.
        let refused = try posters(environment: Self.after(days: 4))
        #expect(refused.status == 0, "\(refused.stderr)")
        #expect(reported("refused", refused.stdout) == urls.count, "\(refused.stdout)")
        #expect(refused.stderr.contains("poster refused"), "\(refused.stderr)")
        #expect(try posterRequests(standIn) == 0)

        let allowed = try posters(["--poster-allow-host", "127.0.0.1"], environment: Self.after(days: 5))
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(storedFiles().count == urls.count, "\(allowed.stdout)")
        #expect(try posterRequests(standIn) == urls.count)
    }

    @Test func everyOtherSpellingOfAnInternalAddressIsRefusedAfterResolution() throws {
        let (standIn, urls) = try warmed(24)
        let port = standIn.port
        let path = "/posters/" + (urls[0].url.split(separator: "/").last.map(String.init) ?? "x.jpg")
        // Each reaches this machine, a private network or a metadata service.
        let attacks: [(url: String, words: String)] = [
            ("http://localhost:\(port)\(path)", "refused to connect to localhost at "),
            ("http://[::ffff:127.0.0.1]:\(port)\(path)", "refused to connect to ::ffff:127.0.0.1, a loopback address"),
            ("http://[::ffff:7f00:1]:\(port)\(path)", "refused to connect to ::ffff:127.0.0.1, a loopback address"),
            ("http://0.0.0.0:\(port)\(path)", "refused to connect to 0.0.0.0, an unspecified address (this host)"),
            ("http://[::]:\(port)\(path)", "refused to connect to ::, an unspecified address (this host)"),
            ("http://[::1]:\(port)\(path)", "refused to connect to ::1, a loopback address"),
            ("http://2130706433:\(port)\(path)", "refused to connect to 127.0.0.1, a loopback address"),
            ("http://0x7f.1:\(port)\(path)", "refused to connect to 127.0.0.1, a loopback address"),
            ("http://127.0.0.2:\(port)\(path)", "refused to connect to 127.0.0.2, a loopback address"),
            (
                "http://127.0.0.1.example@127.0.0.1:\(port)\(path)",
                "refused to connect to 127.0.0.1, a loopback address"
            ),
            ("http://10.255.255.1/x.jpg", "refused to connect to 10.255.255.1, a private address"),
            ("http://192.168.0.1/x.jpg", "refused to connect to 192.168.0.1, a private address"),
            ("http://172.16.0.1/x.jpg", "refused to connect to 172.16.0.1, a private address"),
            ("http://100.64.0.1/x.jpg", "refused to connect to 100.64.0.1, a shared (carrier-grade NAT) address"),
            ("http://169.254.169.254/latest/meta-data/", "refused to connect to 169.254.169.254, a link-local address"),
            ("http://[fd00::1]/x.jpg", "refused to connect to fd00::1, a unique-local address"),
            ("http://[fe80::1]/x.jpg", "refused to connect to fe80::1, a link-local address"),
        ]
        #expect(urls.count >= attacks.count)
        for (film, attack) in zip(urls, attacks) { try setPoster(film.id, attack.url) }
        // Allowing another spelling of loopback allows none of these.
        let out = try posters(["--poster-allow-host", "127.0.0.1.example"])
        #expect(out.status == 0, "\(out.stderr)")
        for (film, attack) in zip(urls, attacks) {
            let row = try poster(film.id)
            #expect(row.hasPrefix("failed " + attack.words), "\(attack.url): \(row)")
            #expect(row.contains("; allow the host with --poster-allow-host "), "\(attack.url): \(row)")
        }
        #expect(try posterRequests(standIn) == 0, "no request reached the stand-in")
        #expect(storedFiles().isEmpty)
        #expect(reported("refused", out.stdout) == urls.count, "the attacks, and the rest on 127.0.0.1: \(out.stdout)")

        // The allowance is for the name as written: allowing 127.0.0.1 does not allow localhost
        // or the IPv4-mapped spelling, and allowing localhost does allow localhost.
        let localhost = urls[0].id
        _ = try posters(["--poster-allow-host", "127.0.0.1"], environment: Self.after(days: 4))
        #expect(try poster(localhost).hasPrefix("failed refused to connect to localhost at "))
        #expect(try poster(urls[1].id).hasPrefix("failed refused to connect to ::ffff:127.0.0.1"))
        _ = try posters(["--poster-allow-host", "localhost"], environment: Self.after(days: 5))
        let allowedRow = try poster(localhost)
        #expect(allowedRow.hasPrefix("stored"), "\(allowedRow)")
        #expect(try poster(urls[1].id).hasPrefix("failed refused to connect to ::ffff:127.0.0.1"))
    }

    @Test func aRedirectFromAnAllowedHostToAnInternalAddressIsRefused() throws {
        let (standIn, urls) = try warmed(10)
        let redirector = try Redirector(to: "http://127.0.0.1:\(standIn.port)")
        defer { redirector.stop() }
        let names = urls.map { $0.url.split(separator: "/").last.map(String.init) ?? "" }
        // One hop; a chain of three hops on the allowed host before the last; a hop to the IPv4-mapped spelling.
        let hop = urls[0].id
        let chain = urls[1].id
        let mapped = urls[2].id
        let file = urls[3].id
        try setPoster(hop, "http://localhost:\(redirector.port)/posters/\(names[0])")
        try setPoster(chain, "http://localhost:\(redirector.port)/again/again/again/posters/\(names[1])")
        try setPoster(mapped, "http://localhost:\(redirector.port)/mapped/posters/\(names[2])")
        try setPoster(file, "http://localhost:\(redirector.port)/file/")

        let out = try posters(["--poster-allow-host", "localhost"])
        #expect(out.status == 75, "the file:// one failed and none was fetched: \(out.stdout)\(out.stderr)")
        let refusal =
            "failed refused to connect to 127.0.0.1, a loopback address; allow the host with --poster-allow-host"
            + " 127.0.0.1 (poster_allow_hosts in a job file)"
        #expect(try poster(hop) == refusal)
        #expect(try poster(chain) == refusal)
        #expect(try poster(mapped).hasPrefix("failed refused to connect to ::ffff:127.0.0.1, a loopback address"))
        #expect(try poster(file).hasPrefix("failed "), "a redirect to file:// is not followed")
        #expect(redirector.requests() >= 7, "the allowed host was asked, hop by hop")
        #expect(try posterRequests(standIn) == 0, "no redirect reached the stand-in")

        // Both hosts allowed: the redirects are followed and the posters stored; the mapped
        // spelling is another host and stays refused.
        let both = try posters(
            ["--poster-allow-host", "localhost", "--poster-allow-host", "127.0.0.1"], environment: Self.after(days: 4))
        #expect(both.status == 0, "\(both.stderr)")
        for id in [hop, chain] {
            let row = try poster(id)
            #expect(row.hasPrefix("stored"), "\(row)")
        }
        #expect(try poster(mapped).hasPrefix("failed refused to connect to ::ffff:127.0.0.1"))
        #expect(try poster(file).hasPrefix("failed "))
        #expect(!FileManager.default.fileExists(atPath: store + "/passwd"))
    }
}

/// A small HTTP server on 127.0.0.1 that answers every GET with a redirect: `/again/REST` to
/// itself at `/REST` (as `localhost`), `/mapped/REST` to the target's port at `::ffff:127.0.0.1`,
/// `/file/` to `file:///etc/passwd`, anything else to the target with the same path.
final class Redirector: @unchecked Sendable {
    private let process: RunningBinary
    /// The port it listens on.
    let port: Int
    private let log: String

    static let script = """
        import http.server, sys
        target, log = sys.argv[1], sys.argv[2]
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                with open(log, "a") as f: f.write(self.path + "\\n")
                port = self.server.server_address[1]
                if self.path.startswith("/again/"):
                    location = "http://localhost:%d/%s" % (port, self.path[len("/again/"):])
                elif self.path.startswith("/file/"):
                    location = "file:///etc/passwd"
                elif self.path.startswith("/mapped/"):
                    location = "http://[::ffff:127.0.0.1]:%s/%s" % (target.rsplit(":", 1)[1], self.path[len("/mapped/"):])
                else:
                    location = target + self.path
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()
            def log_message(self, *args): pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print("port %d" % server.server_address[1], file=sys.stderr, flush=True)
        server.serve_forever()
        """

    init(to target: String) throws {
        log = NSTemporaryDirectory() + "/redirector-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = try RunningBinary("/usr/bin/python3", ["-c", Self.script, target, log])
        self.process = process
        var port: Int?
        try waitFor(
            "the redirector's port", seconds: 30, every: 0.02, while: process.isRunning, ifNotMet: .returnFalse
        ) {
            let text = process.stderrSoFar
            if let range = text.range(of: "port ") { port = Int(text[range.upperBound...].prefix { $0.isNumber }) }
            return port != nil
        }
        guard let port else {
            process.send(SIGKILL)
            throw RedirectorError.didNotStart(process.stderrSoFar)
        }
        self.port = port
    }

    /// How many requests it has answered.
    func requests() -> Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    func stop() {
        process.send(SIGKILL)
        _ = process.wait()
        try? FileManager.default.removeItem(atPath: log)
    }

    enum RedirectorError: Error {
        case didNotStart(String)
    }
}
