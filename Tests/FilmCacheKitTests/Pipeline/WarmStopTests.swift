import Testing

@testable import FilmCacheKit

/// The stop token on its own: first reason wins, waiters wake, waits lose the race to a stop.
@Suite struct WarmStopTests {
    @Test func theFirstReasonWins() {
        let stop = WarmStop()
        #expect(!stop.isRequested && stop.reason == nil)
        #expect(stop.request(.timeLimit))
        #expect(!stop.request(.interrupted))
        #expect(stop.reason == .timeLimit && stop.isRequested)
    }

    @Test func waitersWakeOnRequestAndLateWaitersReturnAtOnce() async {
        let stop = WarmStop()
        let waiter = Task { await stop.wait() }
        await Task.yield()
        stop.request(.interrupted)
        await waiter.value
        await stop.wait()
    }

    @Test func aCancelledWaitReturnsWithoutAStop() async {
        let stop = WarmStop()
        let waiter = Task { await stop.wait() }
        waiter.cancel()
        await waiter.value
        #expect(!stop.isRequested)
    }

    @Test func aTimedRequestFiresAtItsDeadlineOnTheInjectedClock() async {
        let clock = ManualClock()
        let stop = WarmStop()
        let timer = Task { await stop.request(.timeLimit, after: .seconds(90), on: clock) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(89))
        #expect(!stop.isRequested)
        clock.advance(by: .seconds(1))
        #expect(await timer.value)
        #expect(stop.reason == .timeLimit)
    }

    @Test func aCancelledTimedRequestStopsNothing() async {
        let clock = ManualClock()
        let stop = WarmStop()
        let timer = Task { await stop.request(.timeLimit, after: .seconds(90), on: clock) }
        await clock.waitForSleepers(1)
        timer.cancel()
        #expect(await timer.value == false)
        #expect(!stop.isRequested)
    }

    @Test func aStopEndsAWaitInProgressAndCancelsIt() async throws {
        let clock = ManualClock()
        let stop = WarmStop()
        let wait = Task { try await stop.unlessStopped { try await clock.sleep(for: .seconds(3_600)) } }
        await clock.waitForSleepers(1)
        stop.request(.interrupted)
        #expect(try await wait.value == false)
        #expect(clock.sleeperCount == 0, "the sleep was cancelled, not left behind")
        #expect(try await stop.unlessStopped { Issue.record("a stopped token runs no wait") } == false)
    }

    @Test func aWaitThatEndsFirstReportsCompletion() async throws {
        let clock = ManualClock()
        let stop = WarmStop()
        let wait = Task { try await stop.unlessStopped { try await clock.sleep(for: .seconds(5)) } }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(try await wait.value)
        #expect(!stop.isRequested)
    }
}

extension WarmStopTests {
    @Test func aChildStopsWithItsParentAtOnceButNotTheOtherWay() {
        let parent = WarmStop()
        let child = parent.child()
        #expect(child.request(.timeLimit))
        #expect(!parent.isRequested)

        let second = parent.child()
        parent.request(.interrupted)
        #expect(second.reason == .interrupted, "synchronously, no task in between")
        #expect(parent.child().reason == .interrupted, "a child of a stopped token starts stopped")

        let detached = WarmStop()
        let orphan = detached.child()
        detached.detach(orphan)
        detached.request(.interrupted)
        #expect(!orphan.isRequested)
    }
}
