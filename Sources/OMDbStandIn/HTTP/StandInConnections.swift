import Foundation
import NIOCore

/// The server's open connections, so `stop()` can close every one of them at once.
final class StandInConnections: Sendable {
    private let open = Locked([ObjectIdentifier: any Channel]())

    /// Creates an empty set.
    init() {}

    /// Adds a connection.
    func insert(_ channel: any Channel) {
        open.withLock { $0[ObjectIdentifier(channel)] = channel }
    }

    /// Removes a connection that has closed.
    func remove(_ channel: any Channel) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Closes every open connection and waits until each has closed.
    func closeAll() {
        let channels = open.withLock { Array($0.values) }
        for channel in channels {
            try? channel.close().wait()
        }
    }
}
