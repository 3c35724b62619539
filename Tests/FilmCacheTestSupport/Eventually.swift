/// Whether `condition` holds within `limit` of real time: asked every `interval`, and once more at
/// the end. A cancelled task stops waiting early, with that last answer.
package func eventually(
    within limit: Duration = .seconds(300), every interval: Duration = .milliseconds(5),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + limit
    while clock.now < end {
        if try await condition() { return true }
        do { try await clock.sleep(for: interval) } catch { break }
    }
    return try await condition()
}
