import Foundation
import Testing

@testable import FilmCacheKit

/// The terminal bar charts and the shared table helper.
@Suite struct TextBarTests {
    @Test(arguments: [
        (0, ""), (1, "▏"), (3, "▏"), (13, "▌"), (25, "█"), (41, "█▋"), (500, String(repeating: "█", count: 20)),
        (999, String(repeating: "█", count: 40)), (1_000, String(repeating: "█", count: 40)),
        (1_001, String(repeating: "█", count: 40) + "+"),
    ])
    func barsScaleToTheLimitInEighthsOfACell(_ value: Int, _ bar: String) {
        #expect(TextBar.bar(value, scale: 1_000, width: 40) == bar)
    }

    /// Every value from none to the limit: the bar is the value in eighths of a cell, rounded, never
    /// shorter than an eighth for a positive value, never wider than the chart, and never shrinking.
    @Test func barsAreProportionalAndMonotonic() {
        for (scale, width) in [(1_000, 40), (95, 40), (7, 30), (100_000, 40)] {
            var previous = 0
            for value in stride(from: 0, through: scale, by: max(1, scale / 1_000)) {
                let bar = TextBar.bar(value, scale: scale, width: width)
                let eighths = bar.reduce(0) { total, cell in
                    total + (cell == TextBar.fullCell ? 8 : TextBar.partialCells.firstIndex(of: cell) ?? 99)
                }
                let expected =
                    value == 0 ? 0 : max(1, Int((Double(value) / Double(scale) * Double(width * 8)).rounded()))
                #expect(eighths == expected, "\(value) of \(scale)")
                #expect(bar.count <= width)
                #expect(eighths >= previous)
                previous = eighths
            }
        }
    }

    @Test func aZeroScaleDrawsAnyUseAsOverflow() {
        #expect(TextBar.bar(0, scale: 0, width: 10) == "")
        #expect(TextBar.bar(3, scale: 0, width: 4) == "████+")
    }

    @Test func tablesPadColumnsAndTrimTrailingBlanks() {
        var table = TextTable([.left, .right, .left])
        table.add(["day", "calls", ""])
        table.add(["2026-11-21", "7", "!"])
        #expect(table.lines == ["  day         calls", "  2026-11-21      7  !"])
    }

    /// The summary `warm` prints is unchanged by the shared table helper (the README quotes it).
    @Test func theWarmSummaryKeepsItsLayout() {
        var summary = WarmSummary()
        summary.considered = 292
        summary.fetched = 280
        summary.notFound = 12
        summary.calls = 292
        #expect(
            SummaryReport.text(summary, keyFingerprint: "2a97", database: "out/filmcache.sqlite") == """
                filmcache warm → out/filmcache.sqlite
                  considered       292  distinct IDs in the worklists
                  fresh, skipped     0  cached and younger than the TTL
                  fetched          280  stored in films
                  not found         12  OMDb does not know them; recorded
                  failed             0  recorded with a retry time
                  OMDb calls       292  counted in the ledger for key 2a97
                done
                """)
    }
}
