import Testing

@testable import FilmCacheKit

/// The last line of a warm's summary says why it stopped, in words of its own for each reason.
@Suite struct SummaryReportStopReasonTests {
    /// The summary's last line for a run that stopped for `reason`.
    func lastLine(_ reason: StopReason?) -> String {
        var summary = WarmSummary()
        summary.stopReason = reason
        let text = SummaryReport.text(summary, keyFingerprint: "2a97", database: "t.sqlite")
        return String(text.split(separator: "\n").last ?? "")
    }

    @Test func stopsByASignalAndByTheTimeLimitAreNamed() {
        #expect(lastLine(.interrupted).hasPrefix("stopped early: interrupted; calls in flight finished"))
        #expect(lastLine(.timeLimit).hasPrefix("stopped early: the time limit is up; calls in flight finished"))
        #expect(lastLine(nil) == "done")
    }

    @Test func everyReasonHasItsOwnLineAndRawValue() {
        let reasons: [StopReason] = [.budgetSpent, .limitReached, .tooManyFailures, .interrupted, .timeLimit]
        #expect(Set(reasons.map(lastLine)).count == reasons.count)
        #expect(reasons.allSatisfy { lastLine($0).hasPrefix("stopped early: ") })
        #expect(StopReason(rawValue: "interrupted") == .interrupted && StopReason(rawValue: "time-limit") == .timeLimit)
    }
}
