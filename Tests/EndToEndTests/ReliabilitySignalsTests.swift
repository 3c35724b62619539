import Foundation
import OMDbStandIn
import Testing

extension Reliability {
    /// Every signal that ends a run ends it cleanly: a dropped SSH session (SIGHUP) and a reader
    /// that went away (SIGPIPE) keep what was paid for and close the run's `runs` row.
    @Suite struct SignalsTests {
        /// The test's directory and database.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"
        /// Films in the generated corpus: enough for a run of several seconds at 20 ms each.
        static let films = 1_500

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("signals")
        }

        /// `warm` over every generated film, four in flight, no rate limit.
        func arguments(_ standIn: StandInProcess) throws -> [String] {
            let worklist = try scratch.worklist("generated.txt", GeneratedIDs.first(Self.films))
            return [
                "warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--rate", "0", "--max-in-flight", "4",
                "--daily-limit", "100000", "--progress-interval", "0.2", worklist,
            ]
        }

        @Test func sighupStopsLikeSigtermKeepingEveryAnswerAndClosingTheRun() async throws {
            try await offThePool {
                let standIn = try StandInProcess(
                    arguments: ["--generate", "\(Self.films)", "--latency-ms", "20"], corpus: nil)
                let run = try RunningBinary("filmcache", try arguments(standIn), environment: ["OMDB_API_KEY": key])
                try waitFor("100 calls served", every: 0.02, ifNotMet: .returnFalse) {
                    try standIn.requestCount() >= 100
                }
                run.send(SIGHUP)
                let out = run.wait(timeout: 120)
                #expect(out.status == 75, "a hang-up is a clean stop, not death by signal: \(out.stderr.suffix(800))")
                #expect(out.stderr.contains("SIGHUP received"), "\(out.stderr.suffix(800))")
                let served = try standIn.requestCount()
                let stored = Int(try scratch.sqlite("SELECT count(*) FROM films")) ?? -1
                #expect(stored == served, "every answer served is stored (served \(served), stored \(stored))")
                #expect(try scratch.sqlite("SELECT count(*) FROM runs WHERE finished_at IS NULL") == "0")
            }
        }

        @Test func aStopSignalEndsAWaitForTheRunLockAtOnce() async throws {
            try await offThePool {
                let standIn = try StandInProcess(
                    arguments: ["--generate", "\(Self.films)", "--latency-ms", "20"], corpus: nil)
                var slow = try arguments(standIn)
                slow.insert(contentsOf: ["--rate", "5"], at: slow.count - 1)
                let holder = try RunningBinary("filmcache", slow, environment: ["OMDB_API_KEY": key])
                try waitFor("the holder's first three calls", every: 0.02, ifNotMet: .returnFalse) {
                    try standIn.requestCount() >= 3
                }
                let waiter = try RunningBinary("filmcache", slow + ["--wait"], environment: ["OMDB_API_KEY": key])
                try waitFor("the waiter waits", seconds: 30, every: 0.02, ifNotMet: .returnFalse) {
                    waiter.stderrSoFar.contains("waiting for it")
                }
                waiter.send(SIGTERM)
                let sent = Date()
                let out = waiter.wait(timeout: 30)
                #expect(Date().timeIntervalSince(sent) < 5, "the wait ends at the signal, not when the holder finishes")
                #expect(out.status == 75, "\(out.stderr.suffix(800))")
                #expect(out.stderr.contains("stopped while waiting for the run lock"), "\(out.stderr.suffix(800))")
                holder.send(SIGTERM)
                let held = holder.wait(timeout: 60)
                #expect(held.status == 75, "the holder was not disturbed: \(held.stderr.suffix(800))")
                #expect(try scratch.sqlite("SELECT count(*) FROM runs") == "1", "the waiter never began a run")
            }
        }

        @Test func aClosedOutputPipeNeitherKillsTheRunNorLosesItsAnswers() async throws {
            try await offThePool {
                let standIn = try StandInProcess(
                    arguments: ["--generate", "\(Self.films)", "--latency-ms", "1"], corpus: nil)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: BuiltBinaries.directory + "/filmcache")
                process.arguments = try arguments(standIn)
                process.environment = ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "OMDB_API_KEY": key]
                // Both outputs go to a pipe nobody reads: `warm … 2>&1 | head -c 0`.
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardError = pipe
                try process.run()
                try pipe.fileHandleForReading.close()
                try pipe.fileHandleForWriting.close()
                process.waitUntilExit()
                #expect(
                    process.terminationReason == .exit, "not killed by SIGPIPE (status \(process.terminationStatus))")
                #expect(process.terminationStatus == 0)
                #expect(try scratch.sqlite("SELECT count(*) FROM films") == "\(Self.films)")
                #expect(try scratch.sqlite("SELECT count(*) FROM runs WHERE finished_at IS NULL") == "0")
                #expect(try standIn.requestCount() == Self.films)
            }
        }

        @Test func killMinus9AtAPacedRateLosesAtMostAboutTwoSecondsOfPaidAnswers() async throws {
            try await offThePool {
                let standIn = try StandInProcess(arguments: ["--generate", "\(Self.films)"], corpus: nil)
                var args = try arguments(standIn)
                args.insert(contentsOf: ["--rate", "20", "--burst", "1"], at: args.count - 1)
                let run = try BackgroundRun("filmcache", args, environment: ["OMDB_API_KEY": key])
                try waitFor("90 calls served", every: 0.01, while: run.isRunning, ifNotMet: .returnFalse) {
                    try standIn.requestCount() >= 90
                }
                run.kill()
                _ = run.wait()
                let served = try standIn.requestCount()
                let stored =
                    Int(try scratch.sqlite("SELECT (SELECT count(*) FROM films) + (SELECT count(*) FROM lookups)"))
                    ?? -1
                // About two seconds at 20 calls a second (2.5 s: the machine may be busy with other
                // tests), plus the calls in flight.
                #expect(served >= 90 && stored >= served - 54, "served \(served), stored \(stored)")
                let used = Int(try scratch.sqlite("SELECT coalesce(sum(used), 0) FROM quota_ledger")) ?? -1
                #expect(used >= served, "the ledger never under-counts (used \(used), served \(served))")
            }
        }
    }
}
