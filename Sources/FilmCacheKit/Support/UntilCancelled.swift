/// Suspends until the current task is cancelled, with no clock and no polling: for a wait that has
/// nothing to wait for but its end (a backend with one writer has no other process to watch).
package func untilCancelled() async {
    let (stream, continuation) = AsyncStream<Never>.makeStream()
    defer { continuation.finish() }
    // An AsyncStream's iteration ends when its task is cancelled; nothing is ever yielded.
    for await _ in stream {}
}
