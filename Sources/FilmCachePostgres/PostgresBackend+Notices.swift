import FilmCacheKit
import Foundation
import Logging
import PostgresNIO

/// "Limit reached" from any host, as it happens: each warm listens on ``quotaChannel`` on a
/// connection of its own, outside the pool, and stops sending the moment another records the limit
/// for its key, rather than spending the rest of its reserved block.
extension PostgresBackend {
    /// How long the watch waits before listening again after its connection was lost.
    static let relistenDelay = Duration.seconds(5)

    public func watchExhaustion(key: String, noticed: @escaping @Sendable (String) async -> Void) async {
        while !Task.isCancelled {
            do {
                // Raced against nothing, so that a cancel answers at once even while a statement
                // waits on a server that stopped answering (see `race`).
                try await race { [self] in
                    try await listen(key: key, noticed: noticed)
                } against: {
                    await untilCancelled()
                    throw CancellationError()
                }
            } catch {
                if Task.isCancelled { return }
                logger.debug("the limit watch lost its connection; listening again", metadata: ["error": "\(error)"])
            }
            try? await connector.time.sleep(for: Self.relistenDelay)
        }
    }

    /// Listens until the connection ends: first the recent days already exhausted (a limit
    /// recorded before the listen began), then each notice for `key`.
    private func listen(key: String, noticed: @escaping @Sendable (String) async -> Void) async throws {
        let connection = try await connector.connect()
        defer { Task { try? await connection.close() } }
        let logger = logger
        try await connection.listen(on: Self.quotaChannel) { notices in
            let days = try await connection.rows(
                """
                SELECT to_char(quota_day, 'YYYY-MM-DD') FROM quota_ledger
                WHERE key_fingerprint = \(key) AND exhausted_at IS NOT NULL ORDER BY quota_day DESC LIMIT 3
                """, logger
            ).map { try $0.decode(String.self) }
            for day in days { await noticed(day) }
            for try await notice in notices {
                let words = notice.payload.split(separator: " ")
                guard words.count == 2, words[0] == key else { continue }
                await noticed(String(words[1]))
            }
        }
    }
}
