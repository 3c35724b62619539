import Foundation
import PostgresScratch
import Testing

/// Several hosts on one PostgreSQL cache, as near to real as one machine gets: three network
/// namespaces (``NamespaceHosts``), each running the real binary, reaching the server and the
/// stand-in only over a bridge, from an address of its own. One key, one ledger, one plan.
///
/// Making namespaces needs CAP_NET_ADMIN; without it these tests show as skipped, with the reason.
/// Each test has its own hosts and its own server (listening on the bridge's address too), so that
/// nothing here depends on the loopback the other suites use.
@Suite(.serialized, .timeLimit(.minutes(5))) final class PostgresHostsEndToEndTests: Sendable {
    let hosts: NamespaceHosts
    let server: ScratchPostgres
    let scratch: ReliabilityScratch
    /// The key every host warms with.
    let key = "demo"

    init() async throws {
        (hosts, server, scratch) = try await offThePool {
            let hosts = try NamespaceHosts(count: 3)
            let server = try ScratchPostgres(alsoListeningOn: (hosts.address, hosts.network))
            return (hosts, server, try ReliabilityScratch("pg-hosts"))
        }
    }

    deinit {
        server.remove()
        hosts.remove()
    }

    /// Why these tests are skipped, when they are.
    static let skipped = Comment(rawValue: NamespaceHosts.unavailable ?? "")

    /// The password reaches the binary only through `PGPASSWORD`; the key through `OMDB_API_KEY`.
    var environment: [String: String] { ["OMDB_API_KEY": key, "PGPASSWORD": server.password] }

    /// `filmcache warm` of `worklist` started on host `index`, into `database` over the bridge.
    func warm(on index: Int, _ database: String, _ standIn: StandInProcess, _ flags: [String], _ worklist: String)
        throws -> RunningBinary
    {
        try RunningBinary(
            hosts.ip,
            hosts.exec(index, BuiltBinaries.directory + "/filmcache") + [
                "warm", "--db", server.url(database: database, host: hosts.address), "--base-url", standIn.baseURL,
                "--rate", "0", "--no-progress",
            ] + flags + [worklist], environment: environment)
    }

    /// One value from `query` on `database`, as text.
    func sql(_ database: String, _ query: String) throws -> String {
        try server.sql(query, database: database)
    }

    /// The `Int` a one-value query on `database` gives.
    func count(_ database: String, _ query: String) throws -> Int { Int(try sql(database, query)) ?? -1 }

    /// Whether host `index` reaches `url` with curl.
    func reaches(_ index: Int, _ url: String) throws -> Bool {
        try ReliabilityProcess.run(hosts.ip, hosts.exec(index, "/usr/bin/curl") + ["-fsS", "-m", "3", url]).status == 0
    }

    @Test(.enabled(if: NamespaceHosts.unavailable == nil, skipped))
    func threeHostsShareOneBudgetAndOnePlanWithNoIDFetchedTwice() async throws {
        try await offThePool {
            let worklist = try scratch.worklist("w.txt", GeneratedIDs.first(2_000))
            let database = try server.createDatabase()
            // Answers slow until all three warms hold claims, however loaded the machine, so that each
            // gets a share of the budget; quicker after (600 calls then take one warm about 4 s).
            let standIn = try StandInProcess(
                arguments: ["--generate", "2000", "--latency-ms", "5000"], corpus: nil, host: hosts.address)
            // The hosts are apart: the stand-in is reached over the bridge and not on a host's own loopback.
            #expect(try reaches(0, standIn.baseURL + "__standin/stats"))
            #expect(try !reaches(0, "http://127.0.0.1:\(standIn.port)/__standin/stats"), "a host's loopback is its own")

            let flags = ["--max-in-flight", "8", "--daily-limit", "600", "--reserve", "0"]
            let warms = try (0..<3).map { try warm(on: $0, database, standIn, flags, worklist) }
            // Which addresses the server sees the warms connect from, while they run.
            var clients = Set<String>()
            var allClaim = false
            let deadline = Date().addingTimeInterval(120)
            while warms.contains(where: \.isRunning), Date() < deadline {
                let seen = try sql(
                    database,
                    "SELECT DISTINCT host(client_addr) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND client_addr IS NOT NULL")
                clients.formUnion(seen.split(separator: "\n").map(String.init))
                // (The claims table is made by the first warm.)
                if !allClaim, server.runsHoldingClaims(in: database) == 3 {
                    try standIn.setBehaviour("latency-ms=50")
                    allClaim = true
                }
                usleep(100_000)
            }
            #expect(allClaim, "all three warms held claims at once")
            let outputs = warms.map { $0.wait(timeout: 30) }
            for out in outputs { #expect(out.status == 0 || out.status == 75, "\(out.stderr)") }
            #expect(clients == Set(hosts.hostAddresses), "each host connected from its own address: \(clients)")

            let counters = try #require(try standIn.firstKeyCounters())
            let served = try #require(counters["requests"] as? Int)
            let ledger = try count(database, "SELECT coalesce(sum(used), 0) FROM quota_ledger")
            #expect(counters["filmsServedAgain"] as? Int == 0, "no ID fetched twice: \(counters)")
            #expect(served <= 600, "one budget for every host: served \(served)")
            #expect(served == ledger, "every call counted once: served \(served), ledger \(ledger)")
            #expect(try count(database, "SELECT count(*) FROM films") == served)
            // Each host did a share, and the shares add up to what was served.
            let shares = try sql(database, "SELECT string_agg(fetched::text, ' ' ORDER BY id) FROM runs")
                .split(separator: " ").compactMap { Int($0) }
            #expect(shares.count == 3 && shares.allSatisfy { $0 > 0 }, "\(shares)")
            #expect(shares.reduce(0, +) == served, "\(shares)")
            #expect(try count(database, "SELECT count(*) FROM runs WHERE finished_at IS NULL") == 0)
            #expect(
                try count(database, "SELECT count(*) FROM claims WHERE lease_until > now()") == 0, "leases released")
        }
    }

    /// A host's warm killed mid-run: its session with the server ends with it (the host's kernel
    /// closes the connection), and the other hosts take its IDs at once, under a ten-minute lease.
    @Test(.enabled(if: NamespaceHosts.unavailable == nil, skipped))
    func aHostKilledMidRunHasItsIDsFetchedByTheOthersAtOnceUnderATenMinuteLease() async throws {
        try await offThePool {
            let ids = GeneratedIDs.first(1_200)
            let worklist = try scratch.worklist("w.txt", ids)
            let database = try server.createDatabase()
            // OMDb is slow until the kill, so that however loaded the machine, the victim is still far
            // from the end of the night then.
            let standIn = try StandInProcess(
                arguments: ["--generate", "1200", "--latency-ms", "200"], corpus: nil, host: hosts.address)
            let flags = ["--max-in-flight", "4", "--claim-lease", "10m", "--daily-limit", "100000", "--reserve", "0"]
            func films() -> Int { (try? count(database, "SELECT count(*) FROM films")) ?? 0 }

            // The victim starts first (its run is the first) and commits some; the others join it.
            let victim = try warm(on: 0, database, standIn, flags, worklist)
            try waitFor("the victim's first 40 films", every: 0.02, ifNotMet: .returnFalse) { films() >= 40 }
            let others = try (1..<3).map { try warm(on: $0, database, standIn, flags, worklist) }
            try waitFor("three runs and 150 films", every: 0.02, ifNotMet: .returnFalse) {
                (try? count(database, "SELECT count(*) FROM runs")) == 3 && films() >= 150
            }
            victim.send(SIGKILL)
            try standIn.setBehaviour("latency-ms=20")
            let killed = victim.wait()
            #expect(killed.status == SIGKILL, "the victim was still working: \(killed.stderr)")
            let committed = films()

            // Two minutes, a fifth of the lease: only the victim's session ending frees its IDs so soon.
            for out in others.map({ $0.wait(timeout: 120) }) { #expect(out.status == 0, "\(out.stderr)") }
            #expect(films() == ids.count, "every ID stored, the dead host's included")
            let counters = try #require(try standIn.firstKeyCounters())
            // Only what the victim had sent and not stored is asked again.
            let again = try #require(counters["filmsServedAgain"] as? Int)
            #expect(again < ids.count - committed, "asked again: \(again)")
            let served = try #require(counters["requests"] as? Int)
            #expect(try count(database, "SELECT coalesce(sum(used), 0) FROM quota_ledger") >= served)
            #expect(try count(database, "SELECT count(*) FROM runs WHERE outcome = 'killed'") == 1)
            #expect(try count(database, "SELECT count(*) FROM runs WHERE finished_at IS NULL") == 0)
            #expect(try count(database, "SELECT count(*) FROM claims") == 0, "no claim left behind")
        }
    }
}
