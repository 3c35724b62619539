import Foundation
import OMDbStandIn
import Testing

extension Reliability {
    /// The quota ledger across a quota day's midnight and across a kill.
    @Suite struct LedgerTests {
        /// The test's directory and database.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("ledger")
        }

        /// `warm` of every generated film against `standIn` with the clock started at `start`.
        func warm(_ standIn: StandInProcess, start: String, _ extra: [String] = []) throws -> BuiltBinaries.Output {
            let list = try scratch.worklist("ids.txt", GeneratedIDs.first(2_000))
            return try BuiltBinaries.run(
                "filmcache",
                ["warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--daily-limit", "100000"] + extra + [list],
                environment: ["OMDB_API_KEY": key, "FILMCACHE_CLOCK_START": start])
        }

        @Test func aRunCrossingMidnightChargesEachDayItsOwnCallsAndALimitAfterMidnightLandsOnTheNewDay() async throws {
            try await offThePool {
                // 4 s before midnight at 40 calls a second, OMDb's limit after 220 calls: after midnight.
                // The clock runs from the process's start, so a slow start-up only moves calls to the
                // new day; the test asks for calls on both sides, not how many.
                let standIn = try StandInProcess(
                    arguments: ["--generate", "2000", "--limit-after", "220"], corpus: nil)
                let out = try warm(standIn, start: "2031-03-10T23:59:56Z", ["--rate", "40", "--burst", "1"])
                #expect(out.status == 75, "\(out.stderr.suffix(1_000))")
                #expect(out.stdout.contains("daily limit is reached"), "\(out.stdout)")
                let served = try standIn.requestCount()
                let before =
                    Int(try scratch.sqlite("SELECT used FROM quota_ledger WHERE quota_day = '2031-03-10'")) ?? 0
                let after = Int(try scratch.sqlite("SELECT used FROM quota_ledger WHERE quota_day = '2031-03-11'")) ?? 0
                #expect(before > 0 && after > 0, "calls on both sides of midnight: \(before) / \(after)")
                #expect(before + after == served, "each call counted once, on the day it was sent")
                #expect(
                    try scratch.sqlite("SELECT quota_day FROM quota_ledger WHERE exhausted_at IS NOT NULL")
                        == "2031-03-11", "the limit lands on the day it was observed")

                // Later the same quota day: not one more call.
                let again = try warm(standIn, start: "2031-03-11T09:00:00Z", ["--rate", "0"])
                #expect(again.status == 75, "\(again.stderr.suffix(1_000))")
                #expect(try standIn.requestCount() == served, "no call after the limit, the same quota day")
            }
        }

        @Test func aRunNamingAnotherQuotaTimeZoneFindsTheSameBudgetSpent() async throws {
            try await offThePool {
                let standIn = try StandInProcess(arguments: ["--generate", "2000"], corpus: nil)
                // 03:00 UTC on the 12th is 20:00 on the 11th in Los Angeles: two dates, one instant.
                // 09:00 UTC is still the 12th in UTC, and a new day (from 08:00 UTC) in Los Angeles.
                let steps: [(start: String, zone: String, served: Int, why: String)] = [
                    ("2031-03-12T03:00:00Z", "UTC", 95, "the day's budget (100 less the 5% reserve)"),
                    ("2031-03-12T03:00:00Z", "America/Los_Angeles", 95, "not one more: all sent within its 11th"),
                    ("2031-03-12T09:00:00Z", "America/Los_Angeles", 190, "Los Angeles's new day has its own budget"),
                    ("2031-03-12T09:00:00Z", "UTC", 190, "the UTC 12th counts every call sent within it"),
                ]
                for step in steps {
                    let out = try warm(
                        standIn, start: step.start,
                        ["--rate", "0", "--daily-limit", "100", "--quota-timezone", step.zone])
                    #expect(out.status == 75, "\(step.zone) at \(step.start): \(out.stderr.suffix(1_000))")
                    #expect(try standIn.requestCount() == step.served, "\(step.zone) at \(step.start): \(step.why)")
                }

                let report = try BuiltBinaries.run(
                    "filmcache", ["quota", "--db", scratch.db, "--quota-timezone", "UTC", "--json"],
                    environment: ["FILMCACHE_NOW": "2031-03-12T09:00:00Z"])
                #expect(report.status == 0, "\(report.stderr)")
                let document = try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any]
                #expect(document?["day"] as? String == "2031-03-12" && document?["used"] as? Int == 190)
                #expect(document?["left"] as? Int == 0, "\(report.stdout.prefix(600))")
            }
        }

        @Test func twoKeysWhoseOldFourDigitNamesCollideKeepTheirOwnBudgets() async throws {
            try await offThePool {
                // SHA-256 of both begins 7ec9: the ledger's old names for them were the same.
                let (first, second) = ("5f35235b", "5f37cbe5")
                let standIn = try StandInProcess(arguments: ["--generate", "200"], keys: first + "," + second)
                let list = try scratch.worklist("ids.txt", GeneratedIDs.first(200))
                func warm(_ key: String) throws -> BuiltBinaries.Output {
                    try BuiltBinaries.run(
                        "filmcache",
                        [
                            "warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--rate", "0", "--daily-limit",
                            "20",
                        ]
                            + [list],
                        environment: ["OMDB_API_KEY": key, "FILMCACHE_CLOCK_START": "2031-03-11T10:00:00Z"])
                }
                let one = try warm(first)
                #expect(one.status == 75, "\(one.stderr.suffix(1_000))")
                #expect(try standIn.requestCount() == 19, "the day's budget (20 less the 5% reserve)")
                // The rows as an older filmcache named them.
                _ = try scratch.sqlite(
                    "UPDATE quota_ledger SET key_fingerprint = '7ec9'; UPDATE quota_calls SET key_fingerprint = '7ec9';"
                        + " UPDATE runs SET key_fingerprint = '7ec9'; SELECT 1")

                // The first key takes its old rows back: its day is spent.
                let again = try warm(first)
                #expect(again.status == 75, "\(again.stderr.suffix(1_000))")
                #expect(try standIn.requestCount() == 19, "the adopted rows hold the first key's day")
                #expect(try scratch.sqlite("SELECT count(*) FROM quota_ledger WHERE key_fingerprint = '7ec9'") == "0")

                // The second key has a budget of its own.
                let other = try warm(second)
                #expect(other.status == 75, "\(other.stderr.suffix(1_000))")
                #expect(try standIn.requestCount() == 38, "not blocked by the first key's limit")
                let used = try scratch.column(
                    "SELECT length(key_fingerprint) || ' ' || used FROM quota_ledger ORDER BY key_fingerprint")
                #expect(used == ["64 19", "64 19"], "\(used)")
                // Reports show each key by a short name, and `quota --key` takes it.
                let shown = try scratch.column("SELECT substr(key_fingerprint, 1, 12) FROM runs GROUP BY 1")
                #expect(shown.count == 2)
                for name in shown {
                    let report = try BuiltBinaries.run(
                        "filmcache", ["quota", "--db", scratch.db, "--key", name, "--json"],
                        environment: ["FILMCACHE_NOW": "2031-03-11T12:00:00Z"])
                    let document = try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any]
                    #expect(document?["key"] as? String == name && document?["used"] as? Int == 19, "\(report.stdout)")
                }
                // The key itself given as a fingerprint (eight hex digits too) is refused, never echoed.
                let mistaken = try BuiltBinaries.run("filmcache", ["quota", "--db", scratch.db, "--key", first])
                #expect(mistaken.status == 64, "\(mistaken.stderr)")
                #expect(mistaken.stderr.contains("--key names no key in the ledger; its keys: "), "\(mistaken.stderr)")
                #expect(!(mistaken.stdout + mistaken.stderr).contains(first))
            }
        }

        @Test func aKilledRunIsClosedAsKilledByTheNextWithTheCallsTheLedgerCounted() async throws {
            try await offThePool {
                let standIn = try StandInProcess(arguments: ["--generate", "2000", "--latency-ms", "5"], corpus: nil)
                let list = try scratch.worklist("ids.txt", GeneratedIDs.first(2_000))
                let arguments = [
                    "warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--rate", "0", "--daily-limit",
                    "100000", list,
                ]
                let run = try BackgroundRun("filmcache", arguments, environment: ["OMDB_API_KEY": key])
                try waitFor("200 calls served", every: 0.01, while: run.isRunning, ifNotMet: .returnFalse) {
                    try standIn.requestCount() >= 200
                }
                run.kill()
                _ = run.wait()
                let served = try standIn.requestCount()
                #expect(try scratch.sqlite("SELECT count(*) FROM runs WHERE finished_at IS NULL") == "1")
                let next = try BuiltBinaries.run(
                    "filmcache", arguments + ["--max-runtime", "1s"], environment: ["OMDB_API_KEY": key])
                #expect([0, 75].contains(next.status), "\(next.stderr.suffix(1_000))")
                let killed = try scratch.column("SELECT outcome || ' ' || calls FROM runs ORDER BY id").first ?? ""
                let calls = Int(killed.split(separator: " ").last ?? "") ?? -1
                #expect(killed.hasPrefix("killed "), "\(killed)")
                #expect(calls >= served, "the killed run is closed with what the ledger counted: \(calls) ≥ \(served)")
                #expect(try scratch.sqlite("SELECT count(*) FROM runs WHERE finished_at IS NULL") == "0")
            }
        }
    }
}
