import Foundation
import Synchronization
import Testing

@testable import FilmCacheKit

@Suite struct RunLockTests {
    let directory = TemporaryDirectory()
    var database: String { directory.file("films.sqlite") }

    @Test func aSecondHolderIsRefusedWithTheFirstOnesPID() throws {
        let first = try RunLock.acquire(forDatabase: database)
        #expect(first.path == database + ".lock")
        #expect(
            try String(contentsOfFile: first.path, encoding: .utf8) == "\(ProcessInfo.processInfo.processIdentifier)\n")
        #expect(throws: RunLockError.held(path: database + ".lock", pid: ProcessInfo.processInfo.processIdentifier)) {
            try RunLock.acquire(forDatabase: database)
        }
        first.release()
        let second = try RunLock.acquire(forDatabase: database)
        second.release()
        second.release()  // a second release does nothing
    }

    @Test func theLockIsDroppedWhenTheHolderGoesAway() throws {
        do { _ = try RunLock.acquire(forDatabase: database) }
        _ = try RunLock.acquire(forDatabase: database)
    }

    @Test func waitingTakesTheLockOnceItIsFree() async throws {
        let first = try RunLock.acquire(forDatabase: database)
        let waits = Mutex<[Int32?]>([])
        let path = database
        let waiter = Task.detached {
            try RunLock.acquire(forDatabase: path, wait: true) { holder in waits.withLock { $0.append(holder) } }
        }
        while waits.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(waits.withLock { $0 } == [ProcessInfo.processInfo.processIdentifier], "told once who holds it")
        first.release()
        let second = try await waiter.value
        #expect(throws: RunLockError.self) { try RunLock.acquire(forDatabase: path) }
        second.release()
    }

    @Test func aMissingDirectoryIsReported() {
        let path = directory.file("absent/films.sqlite")
        #expect(throws: RunLockError.unavailable(path: path + ".lock", reason: "No such file or directory")) {
            try RunLock.acquire(forDatabase: path)
        }
    }
}
