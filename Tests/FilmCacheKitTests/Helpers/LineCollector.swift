import Synchronization

/// Collects the lines a log handler writes, in place of standard error.
final class LineCollector: Sendable {
    private let collected = Mutex<[String]>([])

    /// Takes one line.
    @Sendable func write(_ line: String) {
        collected.withLock { $0.append(line) }
    }

    /// Lines written so far.
    var lines: [String] { collected.withLock { $0 } }
}
