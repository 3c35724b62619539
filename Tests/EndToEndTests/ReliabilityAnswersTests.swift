import Foundation
import OMDbStandIn
import Testing

extension Reliability {
    /// A server that answers wrongly, or not at all: nothing it sends is stored under the wrong ID,
    /// nothing that is not OMDb's is paid for long, and a call that never left is given back.
    @Suite struct AnswersTests {
        /// The test's directory and database.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("answers")
        }

        /// Runs `filmcache` with the key in its environment.
        func filmcache(_ arguments: [String]) throws -> BuiltBinaries.Output {
            try BuiltBinaries.run("filmcache", arguments, environment: ["OMDB_API_KEY": key])
        }

        /// `warm` of `worklist` against `standIn`, no rate limit.
        func warm(_ standIn: StandInProcess, _ worklist: String, _ extra: [String] = []) throws -> BuiltBinaries.Output
        {
            try filmcache(
                ["warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--rate", "0"] + extra + [worklist])
        }

        /// The bundled corpus's IDs in order.
        static let corpusIDs: [String] = {
            let names =
                (try? FileManager.default.contentsOfDirectory(atPath: BuiltBinaries.packageRoot + "/Data/corpus"))
            return (names ?? []).filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
        }()

        @Test func aBodyForAnotherFilmIsStoredUnderItsOwnIDAndTheAskedOneBecomesAnAlias() throws {
            let asked = "tt0100044"
            let answered = try #require(Self.corpusIDs.first { $0 > asked })
            let standIn = try StandInProcess(arguments: ["--faults", "wrong-id", "--fault-rate", "1"])
            let list = try scratch.worklist("one.txt", [asked])
            let out = try warm(standIn, list)
            #expect(out.status == 0, "\(out.stderr)")
            #expect(try scratch.column("SELECT imdb_id FROM films") == [answered], "never stored under the asked ID")
            #expect(try scratch.sqlite("SELECT asked_id || ' ' || imdb_id FROM aliases") == "\(asked) \(answered)")
            let title = try scratch.sqlite("SELECT title FROM films")
            let shown = try filmcache(["show", asked, "--db", scratch.db])
            #expect(shown.status == 0 && shown.stdout.contains(title) && shown.stdout.contains(answered), "\(shown)")
            #expect(shown.stderr.contains("alias"), "\(shown.stderr)")

            // The alias follows the fresh film: the asked ID is not paid for again before its TTL.
            let before = try standIn.requestCount()
            let again = try warm(standIn, list)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try standIn.requestCount() == before, "no call for an alias of a fresh film")
        }

        @Test func aBodyNamingNoFilmIsNeverStoredAndEndsTheRunAsNotOMDb() throws {
            let standIn = try StandInProcess(arguments: ["--faults", "empty-film", "--fault-rate", "1"])
            let out = try warm(
                standIn, try scratch.worklist("ids.txt", Self.corpusIDs.prefix(40)), ["--max-attempts", "1"])
            #expect(out.status == 76, "\(out.stderr)")
            #expect(try scratch.sqlite("SELECT count(*) FROM films") == "0", "no all-NULL film")
            #expect(try standIn.requestCount() <= 20)
        }

        @Test(arguments: ["html-403", "302", "html-404"])
        func anAnswerThatIsNotOMDbEndsTheRunWith76AfterAFewCalls(fault: String) throws {
            let standIn = try StandInProcess(arguments: ["--faults", fault, "--fault-rate", "1"])
            let out = try warm(
                standIn, try scratch.worklist("ids.txt", Self.corpusIDs), ["--daily-limit", "1000", "--reserve", "50"])
            #expect(out.status == 76, "\(fault): \(out.stderr)")
            let served = try standIn.requestCount()
            #expect(served <= 30, "a day's budget is not spent on \(fault): \(served) calls")
            let status = fault.hasPrefix("html-") ? "HTTP " + fault.dropFirst(5) : "HTTP 302"
            #expect(out.stderr.contains("does not answer like OMDb") && out.stderr.contains(status), "\(out.stderr)")
            #expect(out.stdout.contains("filmcache warm →"), "the summary is printed")
            #expect(try scratch.sqlite("SELECT count(*) FROM films") == "0")
            #expect(!out.stderr.contains(key) && !out.stdout.contains(key))
            #expect(try scratch.sqlite("SELECT outcome FROM runs") == "not-omdb")
        }

        @Test func aRunInWhichNothingSucceededDoesNotExit0() throws {
            let standIn = try StandInProcess(arguments: ["--faults", "500", "--fault-rate", "1"])
            let out = try warm(
                standIn, try scratch.worklist("ids.txt", Self.corpusIDs.prefix(3)),
                ["--max-attempts", "1", "--breaker-pause-after", "50", "--breaker-stop-after", "60"])
            #expect(out.status == 75, "\(out.stdout)\n\(out.stderr)")
            #expect(out.stderr.contains("no ID got an answer"), "\(out.stderr)")
        }

        @Test func aNulInsideAStringIsShownEscapedNotCut() throws {
            let standIn = try StandInProcess(arguments: ["--faults", "nul", "--fault-rate", "1"])
            let id = try #require(Self.corpusIDs.first)
            let out = try warm(standIn, try scratch.worklist("one.txt", [id]))
            #expect(out.status == 0, "\(out.stderr)")
            let human = try filmcache(["show", id, "--db", scratch.db])
            #expect(human.stdout.hasPrefix("NUL\\u{0}") && human.stdout.contains(" — \(id)"), "\(human.stdout)")
            let json = try filmcache(["show", id, "--db", scratch.db, "--json"])
            #expect(
                json.stdout.contains(#""title": "NUL\u0000Frontier"#) || json.stdout.contains(#""title": "NUL\u0000"#),
                "\(json.stdout)")
        }

        @Test func anUnreachableOMDbEndsWithin15SecondsWith69ItsSummaryAndNoCallCharged() throws {
            let list = try scratch.worklist("ids.txt", Self.corpusIDs.prefix(50))
            let started = Date()
            let out = try filmcache(["warm", "--db", scratch.db, "--base-url", "http://127.0.0.1:1/", list])
            let elapsed = Date().timeIntervalSince(started)
            #expect(out.status == 69, "\(out.stderr)")
            #expect(elapsed < 15, "\(elapsed) s")
            #expect(out.stdout.contains("filmcache warm →") && out.stdout.contains("OMDb unreachable"), "\(out.stdout)")
            #expect(try scratch.sqlite("SELECT coalesce(sum(used), 0) FROM quota_ledger") == "0", "calls never sent")
        }
    }
}
