import Foundation
import PostgresScratch
import Testing

/// What ``waitFor(_:seconds:every:while:ifNotMet:sourceLocation:_:)`` does when what it waits for has
/// not come by its deadline, or the process it watches ended first.
enum WaitFailure {
    /// Fails the test and stops it (`#require`).
    case stop
    /// Fails the test and lets it go on (`#expect`).
    case record
    /// Fails nothing: returns `false`, and the caller's own checks judge what follows.
    case returnFalse
}

/// Waits for `what`: asks `condition` every `every` seconds until it holds, for at most `seconds`, and
/// (when `alive` is given) only while `alive` holds, as while the process that should bring it runs.
/// Whether it held; when it did not, `failure` says what becomes of the test, the message naming `what`
/// and the caller's line.
@discardableResult
func waitFor(
    _ what: String, seconds: Double = 60, every: Double = 0.05, while alive: @autoclosure () -> Bool = true,
    ifNotMet failure: WaitFailure = .stop, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
) throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
        let late = Date() >= deadline
        guard !late, alive() else {
            let comment = Comment(
                rawValue: late
                    ? "waited \(seconds) s for \(what)"
                    : "waited for \(what), but what was to bring it ended first (limit \(seconds) s)")
            let met = false
            switch failure {
            case .stop: try #require(met, comment, sourceLocation: sourceLocation)
            case .record: #expect(met, comment, sourceLocation: sourceLocation)
            case .returnFalse: break
            }
            return met
        }
        Thread.sleep(forTimeInterval: every)
    }
    return true
}

extension ScratchPostgres {
    /// How many runs hold claims in `database`; 0 while its claims table is not there, as before the
    /// first warm makes it.
    func runsHoldingClaims(in database: String) -> Int {
        (try? sql("SELECT count(DISTINCT run_id) FROM claims", database: database)).flatMap { Int($0) } ?? 0
    }
}
