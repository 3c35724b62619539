import Foundation
import Testing

/// `filmcache serve` against the promises: a quota day's midnight, OMDb's limit, answers that are
/// not OMDb's, a tokens file that goes wrong, signals, settings at their edges.
@Suite(.serialized) struct ServeAttackEndToEndTests {
    static let ids = ServeEndToEndTests.corpusIDs

    @Test func theQuotaDayTurnsOverAtMidnightAndTheNewDaysBudgetApplies() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-midnight")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir),
                arguments: ["--daily-limit", "2"], environment: ["FILMCACHE_CLOCK_START": "2026-03-10T23:59:30Z"])
            #expect(try serve.omdb("i=\(Self.ids[0])").header("X-Cache") == "miss")
            #expect(try serve.omdb("i=\(Self.ids[1])").header("X-Cache") == "miss")
            let spent = try serve.omdb("i=\(Self.ids[2])")
            #expect(spent.status == 401)
            let retry = Int(spent.header("Retry-After") ?? "") ?? -1
            // Thirty seconds before midnight: room for a slow start on a loaded machine.
            #expect((1...30).contains(retry), "Retry-After \(retry): the reset is at most 30 s away")
            #expect(try standIn.requestCount() == 2)
            // Past midnight on serve's clock (its Retry-After says how far, whenever serve started): the new day's
            // budget.
            Thread.sleep(forTimeInterval: Double(max(retry, 0) + 1))
            let next = try serve.omdb("i=\(Self.ids[2])")
            #expect(next.status == 200)
            #expect(next.header("X-Cache") == "miss")
            #expect(try standIn.requestCount() == 3)
            #expect(
                try scratch.sqlite("SELECT quota_day || ':' || used FROM quota_ledger ORDER BY quota_day")
                    == "2026-03-10:2\n2026-03-11:1")
        }
    }

    @Test func afterOMDbSaysItsLimitIsReachedNoProcessSendsAnotherCallThatDay() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-limit")
            defer { scratch.removeUnlessKept() }
            // OMDb's own limit, lower than the one serve is told.
            let standIn = try StandInProcess(arguments: ["--daily-limit", "2"])
            let tokens = try ServeProcess.tokensFile(in: scratch.dir)
            let serve = try ServeProcess(database: scratch.db, standIn: standIn, tokensFile: tokens)
            #expect(try serve.omdb("i=\(Self.ids[0])").status == 200)
            #expect(try serve.omdb("i=\(Self.ids[1])").status == 200)
            for id in Self.ids[2..<6] {
                let answer = try serve.omdb("i=\(id)")
                #expect(answer.status == 401)
                #expect(answer.text == #"{"Response":"False","Error":"Request limit reached!"}"#)
                #expect(answer.header("Retry-After") != nil)
            }
            // The film it has is still a hit.
            #expect(try serve.omdb("i=\(Self.ids[0])").header("X-Cache") == "hit")
            #expect(try standIn.requestCount() == 3)
            // Another serve process, and a warm, on the same cache: no call either.
            let other = try ServeProcess(database: scratch.db, standIn: standIn, tokensFile: tokens)
            #expect(try other.omdb("i=\(Self.ids[7])").status == 401)
            let worklist = try scratch.worklist("w.txt", Array(Self.ids[10..<20]))
            let warm = try BuiltBinaries.run(
                "filmcache", ["warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--no-progress", worklist],
                environment: ["OMDB_API_KEY": ServeProcess.omdbKey])
            #expect(warm.status == 75, "\(warm.stderr)")
            #expect(try standIn.requestCount() == 3)
        }
    }

    @Test func answersThatAreNotOMDbsAreNeverStoredAndABodyOnlyUnderTheIDItNames() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-foreign")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess(arguments: [
                "--fault-rate", "1", "--faults", "html-403,302,empty-film,malformed,truncate,html-404",
            ])
            let serve = try ServeProcess(
                database: scratch.db, standIn: standIn, tokensFile: try ServeProcess.tokensFile(in: scratch.dir),
                arguments: ["--max-attempts", "1", "--breaker-pause-after", "1000"])
            let queries = ServeQueryFormEndToEndTests.queries
            for round in 0..<3 {
                for query in queries {
                    let answer = try serve.omdb(query + "&n=\(round)")
                    #expect(answer.status == 503, "\(query): \(answer.text.prefix(120))")
                    #expect(answer.text == #"{"Response":"False","Error":"Error getting data."}"#)
                }
            }
            #expect(try standIn.requestCount() == 3 * queries.count)
            for table in ["films", "answers", "lookups", "titles", "aliases"] {
                #expect(try scratch.sqlite("SELECT count(*) FROM \(table)") == "0", "\(table)")
            }
            // OMDb answering with another title: each body is kept under the ID it names only.
            try standIn.setBehaviour("fault-rate=1&faults=wrong-id")
            let asked = Self.ids[4]
            let full = try serve.omdb("i=\(asked)&plot=full")
            #expect(full.status == 200)
            #expect(!full.text.contains(asked))
            #expect(try scratch.sqlite("SELECT count(*) FROM answers") == "0")
            let plain = try serve.omdb("i=\(asked)")
            #expect(plain.status == 200)
            #expect(try scratch.sqlite("SELECT count(*) FROM films WHERE imdb_id = '\(asked)'") == "0")
            #expect(try scratch.sqlite("SELECT count(*) FROM aliases WHERE asked_id = '\(asked)'") == "1")
        }
    }

    @Test func aBadTokensFileIsNamedByLineAndSIGHUPReadsItAgainKeepingTheOldOnAMistake() async throws {
        try await offThePool {
            let scratch = try ReliabilityScratch("serve-tokens")
            defer { scratch.removeUnlessKept() }
            let standIn = try StandInProcess()
            let secret = "short"
            let bad = try scratch.write("bad-tokens", Array("good-token-0001\n\(secret)\n".utf8))
            let refused = try BuiltBinaries.run(
                "filmcache",
                [
                    "serve", "--db", scratch.db, "--tokens-file", bad, "--listen", "127.0.0.1:0", "--base-url",
                    standIn.baseURL,
                ],
                environment: ["OMDB_API_KEY": ServeProcess.omdbKey])
            #expect(refused.status == 78)
            #expect(refused.stderr.contains("\(bad):2: a token is 8 to 256 characters long"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("good-token-0001"))
            let missing = try BuiltBinaries.run(
                "filmcache",
                ["serve", "--db", scratch.db, "--tokens-file", scratch.dir + "/none", "--listen", "127.0.0.1:0"],
                environment: ["OMDB_API_KEY": ServeProcess.omdbKey])
            #expect(missing.status == 78)
            #expect(missing.stderr.contains("cannot read the tokens file \(scratch.dir)/none"))
            for (flag, value) in [("--listen", "nonsense"), ("--request-timeout", "0"), ("--listen", "1.2.3.4:99999")] {
                let out = try BuiltBinaries.run(
                    "filmcache", ["serve", "--db", scratch.db, "--tokens-file", bad, flag, value],
                    environment: ["OMDB_API_KEY": ServeProcess.omdbKey])
                #expect(out.status == 64, "\(flag) \(value): \(out.stderr)")
                #expect(out.stderr.contains(flag), "\(out.stderr)")
            }

            let tokens = try ServeProcess.tokensFile(in: scratch.dir)
            let serve = try ServeProcess(database: scratch.db, standIn: standIn, tokensFile: tokens)
            let newcomer = "new-app-token-77"
            let id = Self.ids[0]
            #expect(try serve.get("/?apikey=\(newcomer)&i=\(id)").status == 401)
            try (ServeProcess.tokens + [newcomer]).joined(separator: "\n").write(
                toFile: tokens, atomically: true, encoding: .utf8)
            serve.binary.send(SIGHUP)
            var status = 0
            for _ in 0..<50 where status != 200 {
                status = try serve.get("/?apikey=\(newcomer)&i=\(id)").status
                if status != 200 { Thread.sleep(forTimeInterval: 0.1) }
            }
            #expect(status == 200)
            // A file gone bad keeps the tokens read last.
            try "only\n".write(toFile: tokens, atomically: true, encoding: .utf8)
            serve.binary.send(SIGHUP)
            try waitFor("\"tokens file not read again\" in serve's log", seconds: 30, ifNotMet: .record) {
                serve.binary.stderrSoFar.contains("tokens file not read again")
            }
            #expect(serve.binary.isRunning)
            #expect(try serve.get("/?apikey=\(newcomer)&i=\(id)").status == 200)
            // A second server on the same port cannot start, and says so.
            let good = try scratch.write("good-tokens", Array("good-token-0001\n".utf8))
            let clash = try BuiltBinaries.run(
                "filmcache",
                [
                    "serve", "--db", scratch.db, "--tokens-file", good, "--listen",
                    "127.0.0.1:\(serve.port)", "--base-url", standIn.baseURL,
                ],
                environment: ["OMDB_API_KEY": ServeProcess.omdbKey])
            #expect(clash.status == 69, "\(clash.stderr)")
            #expect(clash.stderr.contains("serve:"))
            // SIGINT stops it cleanly, as SIGTERM does.
            serve.binary.send(SIGINT)
            #expect(serve.binary.wait(timeout: 30).status == 0)
        }
    }
}
