import FilmCacheKit
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing

@testable import FilmCacheServe

/// The serve engine's services at the graceful shutdown: the demand counted is written, and the
/// services end, without a signal.
@Suite struct ServeShutdownTests {
    @Test func theGracefulShutdownWritesTheLastDemand() async throws {
        let upstream = ScriptedUpstream { id, _ in ScriptedUpstream.film(id) }
        try await ServeFixture.with(upstream) { fixture in
            try await fixture.app.test(.router) { client in
                for _ in 0..<3 {
                    _ = try await client.execute(uri: "/?apikey=\(ServeFixture.token)&i=tt0133093", method: .get)
                }
            }
            let logger = Logger(label: "serve-tests") { _ in SwiftLogNoOpLogHandler() }
            let group = ServiceGroup(
                services: [
                    ExhaustionWatchService(watcher: fixture.engine.exhaustion),
                    DemandFlushService(flusher: fixture.engine.demand),
                ],
                logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(try await fixture.store.demand(of: ["tt0133093"]) == ["tt0133093": 3])
        }
    }
}
