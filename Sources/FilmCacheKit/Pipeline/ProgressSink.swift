/// Where a running warm reports how far it has come; the executable draws or logs it.
///
/// ``WarmJob`` calls ``report(_:)`` every ``interval`` while it fetches, from its own task;
/// an implementation must return quickly and must not block.
public protocol ProgressSink: Sendable {
    /// How often the job reports.
    var interval: Duration { get }

    /// Takes one snapshot of the fetch.
    func report(_ progress: WarmProgress)
}
