import Foundation
import Synchronization
import Testing

@testable import FilmCacheKit

/// Stopping a warm from outside and by its time limit, and its progress reports.
extension WarmJobTests {
    @Test func aStopRequestedBeforeTheRunMakesNoCallAndDefersEverything() async throws {
        let transport = ScriptedTransport { id, _ in ScriptedTransport.film(id) }
        let (job, store) = try job(Self.ids(20), transport: transport)
        job.stop.request(.interrupted)
        let summary = try await job.run()
        #expect(summary.calls == 0 && transport.requested.isEmpty)
        #expect(summary.deferred == 20 && summary.stopReason == .interrupted)
        #expect(try ledgerUsed(store) == 0, "reservations are released")
    }

    @Test func aStopMidRunLetsCallsInFlightFinishStoresThemAndARerunDoesTheRest() async throws {
        let stop = WarmStop()
        let sent = Mutex(0)
        let transport = ScriptedTransport { id, _ in
            if sent.withLock({
                $0 += 1
                return $0
            }) == 50 {
                stop.request(.interrupted)
            }
            return ScriptedTransport.film(id)
        }
        var (job, store) = try job(Self.ids(300), transport: transport) { $0.maxInFlight = 4 }
        job.stop = stop
        let summary = try await job.run()
        #expect(summary.stopReason == .interrupted)
        #expect(transport.requested.count <= 50 + 3, "only the workers already past the check send")
        #expect(summary.fetched == transport.requested.count, "every call sent was answered and stored")
        #expect(summary.calls == transport.requested.count)
        #expect(try store.filmCount() == summary.fetched)
        #expect(try ledgerUsed(store) == summary.calls, "unsent reservations are released")
        #expect(summary.deferred == 300 - summary.fetched)

        job.stop = WarmStop()
        let rest = try await job.run()
        #expect(rest.stopReason == nil && rest.fetched == 300 - summary.fetched)
        #expect(transport.requested.count == 300 && Set(transport.requested).count == 300, "no ID fetched twice")
        #expect(try ledgerUsed(store) == 300)
    }

    /// Sleepers on the job's clock while a worker waits: the writer's commit tick and the wait itself.
    static let tickAndWait = 2

    @Test func aStopEndsARetryWaitAtOnceAndLeavesTheIDForTheNextRun() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport { _, _ in
            .success(HTTPResponse(status: 503, body: Array("busy".utf8), retryAfter: "100"))
        }
        var (job, store) = try job(Self.ids(3), transport: transport) { $0.maxInFlight = 1 }
        job.time = TimeSource(clock: clock, wall: .fixed(Self.now))
        let running = Task { [job] in try await job.run() }
        await clock.waitForSleepers(Self.tickAndWait)
        job.stop.request(.interrupted)
        let summary = try await running.value
        #expect(clock.now == clock.zero, "the 100 s Retry-After wait ended without the clock moving")
        #expect(summary.stopReason == .interrupted && summary.calls == 1 && summary.failed == 0)
        #expect(summary.deferred == 3)
        #expect(try store.lookup("tt1000001") == nil, "nothing recorded: the next run tries it afresh")
        #expect(try ledgerUsed(store) == 1)
    }

    // A guard against a hang, not a timing assertion: beside the whole suite on two cores this test
    // has taken 50–105 s of wall time while it waits its turn on the cooperative pool.
    @Test(.timeLimit(.minutes(5))) func aRetryWaitsForRetryAfterOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport { id, attempt in
            attempt == 1
                ? .success(HTTPResponse(status: 503, body: Array("busy".utf8), retryAfter: "100"))
                : ScriptedTransport.film(id)
        }
        var (job, store) = try job(Self.ids(1), transport: transport) { $0.maxInFlight = 1 }
        job.time = TimeSource(clock: clock, wall: .fixed(Self.now))
        let running = Task { [job] in try await job.run() }
        await clock.waitForSleepers(Self.tickAndWait)
        clock.advance(by: .seconds(99))
        await clock.waitForSleepers(Self.tickAndWait)
        #expect(transport.requested.count == 1, "99 s into a 100 s Retry-After nothing is sent")
        clock.advance(by: .seconds(1))
        let summary = try await running.value
        #expect(transport.requested.count == 2 && summary.fetched == 1 && summary.calls == 2)
        #expect(try store.filmCount() == 1)
    }

    @Test func aStopEndsARateLimitWait() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport { id, _ in ScriptedTransport.film(id) }
        var (job, store) = try job(Self.ids(5), transport: transport) {
            $0.rate = 0.01
            $0.burst = 1
            $0.maxInFlight = 1
        }
        job.time = TimeSource(clock: clock, wall: .fixed(Self.now))
        let running = Task { [job] in try await job.run() }
        await clock.waitForSleepers(Self.tickAndWait)
        #expect(transport.requested.count == 1, "the second call waits 100 s for the rate")
        job.stop.request(.interrupted)
        let summary = try await running.value
        #expect(clock.now == clock.zero, "the 100 s rate wait ended without the clock moving")
        #expect(summary.fetched == 1 && summary.calls == 1 && summary.deferred == 4)
        #expect(summary.stopReason == .interrupted)
        #expect(try ledgerUsed(store) == 1)
    }

    @Test func theTimeLimitStopsTheRunCleanlyOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport { id, _ in ScriptedTransport.film(id) }
        var (job, store) = try job(Self.ids(5), transport: transport) {
            $0.rate = 0.01
            $0.burst = 1
            $0.maxInFlight = 1
            $0.maxRuntime = Duration(parsing: "45m")
        }
        job.time = TimeSource(clock: clock, wall: .fixed(Self.now))
        let running = Task { [job] in try await job.run() }
        await clock.waitForSleepers(1)
        while transport.requested.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        clock.advance(by: .seconds(45 * 60 - 1))
        #expect(clock.sleeperCount == 1, "one second short of the limit the run goes on")
        clock.advance(by: .seconds(1))
        let summary = try await running.value
        #expect(summary.stopReason == .timeLimit)
        #expect(summary.fetched == 1 && summary.calls == 1 && summary.deferred == 4)
        #expect(try ledgerUsed(store) == 1)
        #expect(try store.filmCount() == 1)
    }

    @Test func progressIsReportedEveryIntervalOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let sink = RecordingProgressSink(interval: .seconds(1))
        let transport = ScriptedTransport { id, _ in ScriptedTransport.film(id) }
        // One call, then none for 10,000 s: the test's ticks never let a second one out.
        var (job, _) = try job(Self.ids(3), transport: transport) {
            $0.rate = 0.0001
            $0.burst = 1
            $0.maxInFlight = 1
        }
        job.time = TimeSource(clock: clock, wall: .fixed(Self.now))
        job.progress = sink
        let running = Task { [job] in try await job.run() }
        var last: WarmProgress?
        for _ in 0..<5_000 {
            // The clock moves only once the reporter sleeps again: no interval passes unreported.
            await clock.waitForSleeper(until: clock.now.advanced(by: .seconds(1)))
            last = sink.reports.last
            if last?.done == 1 { break }
            clock.advance(by: .seconds(1))
        }
        let ticks = sink.reports.count
        #expect(ticks >= 1)
        #expect(
            last == WarmProgress(done: 1, total: 3, fetched: 1, calls: 1, quotaLeft: 950 - 1, elapsed: .seconds(ticks)))
        job.stop.request(.interrupted)
        let summary = try await running.value
        #expect(summary.stopReason == .interrupted && summary.fetched == 1)
        #expect(sink.reports.count == ticks, "no report after the run")
    }
}
