import Synchronization
import Testing

@testable import FilmCacheKit

/// The queue of a warm on a cache several warms share: it hands out only what the run claims.
@Suite struct WorkQueueClaimTests {
    /// Another run as the claims see it: IDs it holds, IDs it has answered; `release` at a pause.
    final class OtherRun: Sendable {
        struct State {
            var holding: Set<String>
            var answered: Set<String>
            var asked: [[String]] = []
            var pauses = 0
            /// The attempt each pause was told, in order.
            var attempts: [Int] = []
        }
        let state: Mutex<State>
        /// What the other run does at each of this run's pauses.
        let atPause: @Sendable (inout State) -> Void

        init(holding: Set<String>, answered: Set<String>, atPause: @escaping @Sendable (inout State) -> Void) {
            state = Mutex(State(holding: holding, answered: answered))
            self.atPause = atPause
        }

        func claimer(chunk: Int) -> WorkQueue.Claimer {
            WorkQueue.Claimer(
                chunk: chunk,
                claim: { ids in
                    self.state.withLock { s in
                        s.asked.append(ids)
                        return ClaimOutcome(
                            granted: ids.filter { !s.holding.contains($0) && !s.answered.contains($0) },
                            answered: ids.filter { s.answered.contains($0) })
                    }
                },
                pause: { attempt in
                    self.state.withLock { s in
                        s.pauses += 1
                        s.attempts.append(attempt)
                        self.atPause(&s)
                    }
                    return true
                })
        }
    }

    static func ids(_ n: Int) -> [String] { (1...n).map { "tt" + String(2_000_000 + $0) } }

    func drain(_ queue: WorkQueue) async throws -> [FetchTarget] {
        var taken: [FetchTarget] = []
        while let target = try await queue.next() { taken.append(target) }
        return taken
    }

    @Test func grantedIDsComeInPlanOrderAndAnsweredOnesArePassedOver() async throws {
        let ids = Self.ids(10)
        let other = OtherRun(holding: [], answered: [ids[2], ids[7]]) { _ in }
        let queue = WorkQueue(ids.map(FetchTarget.id), claimer: other.claimer(chunk: 4))
        let taken = try await drain(queue)
        #expect(taken.compactMap(\.imdbID) == ids.filter { $0 != ids[2] && $0 != ids[7] })
        #expect(other.state.withLock { $0.asked } == [Array(ids[0..<4]), Array(ids[4..<8]), Array(ids[8..<10])])
        #expect(queue.answeredElsewhere == 2 && queue.remaining == 0)
        #expect(other.state.withLock { $0.pauses } == 0, "nothing held: no pause")
    }

    @Test func heldIDsAreAskedForAgainAfterAPauseUntilTheirLeasePasses() async throws {
        let ids = Self.ids(6)
        // The other run holds ids 1 and 4; at the second pause its lease has passed (it died).
        let other = OtherRun(holding: [ids[1], ids[4]], answered: []) { s in
            if s.pauses == 2 { s.holding = [] }
        }
        let queue = WorkQueue(ids.map(FetchTarget.id), claimer: other.claimer(chunk: 3))
        let taken = try await drain(queue)
        #expect(taken.compactMap(\.imdbID) == [ids[0], ids[2], ids[3], ids[5], ids[1], ids[4]])
        #expect(other.state.withLock { $0.pauses } == 2)
        #expect(other.state.withLock { $0.attempts } == [0, 1], "the second pause follows a fruitless one")
        #expect(other.state.withLock { $0.asked.suffix(2) } == [[ids[1], ids[4]], [ids[1], ids[4]]])
    }

    @Test func theNextChunkIsClaimedWhileHalfAChunkIsStillReady() async throws {
        let ids = Self.ids(8)
        let other = OtherRun(holding: [], answered: []) { _ in }
        let queue = WorkQueue(ids.map(FetchTarget.id), claimer: other.claimer(chunk: 4))
        for _ in 0..<3 { _ = try await queue.next() }
        // One of the first chunk is left: the second is claimed now, not when a worker finds none.
        for _ in 0..<100_000 where other.state.withLock({ $0.asked.count }) < 2 { await Task.yield() }
        #expect(other.state.withLock { $0.asked } == [Array(ids[0..<4]), Array(ids[4..<8])])
        await queue.settle()
        let rest = try await drain(queue)
        #expect(rest.compactMap(\.imdbID) == Array(ids[3..<8]))
        #expect(other.state.withLock { $0.asked.count } == 2 && queue.remaining == 0)
    }

    @Test func heldIDsTheOtherRunAnswersAreDroppedNotFetched() async throws {
        let ids = Self.ids(4)
        let other = OtherRun(holding: [ids[0], ids[3]], answered: []) { s in
            s.holding = []
            s.answered = [ids[0], ids[3]]
        }
        let queue = WorkQueue(ids.map(FetchTarget.id), claimer: other.claimer(chunk: 8))
        #expect(try await drain(queue).compactMap(\.imdbID) == [ids[1], ids[2]])
        #expect(queue.answeredElsewhere == 2 && queue.remaining == 0)
    }

    @Test func aStopLeavesClaimedAndHeldIDsCountedAsRemaining() async throws {
        let ids = Self.ids(8)
        let other = OtherRun(holding: [ids[1]], answered: []) { _ in }
        let queue = WorkQueue(ids.map(FetchTarget.id), claimer: other.claimer(chunk: 4))
        #expect(try await queue.next() == .id(ids[0]))
        queue.stop()
        #expect(try await queue.next() == nil)
        // ids 2 and 3 claimed, 1 held, 4–7 never asked, and the one the caller held.
        #expect(queue.remaining == 2 + 1 + 4 + 1)
    }

    @Test func aTitleIsClaimedByItsKeyAsAnIDIs() async throws {
        let entry = TitleEntry(query: try #require(TitleQuery(title: "Heat", year: 1995)), file: "w.txt", line: 1)
        let key = entry.query.key.claimKey
        #expect(key == "t:1995::heat")
        // Another run holds the title at first, then lets it go.
        let other = OtherRun(holding: [key], answered: []) { s in s.holding = [] }
        let queue = WorkQueue([.title(entry), .id("tt2000001")], claimer: other.claimer(chunk: 4))
        #expect(try await drain(queue) == [.id("tt2000001"), .title(entry)])
        #expect(other.state.withLock { $0.asked } == [[key, "tt2000001"], [key]])
    }
}
