import Foundation
import Testing

/// The checked-in sample watchlist.
@Suite struct WatchlistTests {
    /// Header counts match the lines.
    @Test func headerCountsMatchTheLines() throws {
        let root = StandInHarness.repositoryRoot
        let text = try String(contentsOf: root.appendingPathComponent("Data/watchlist.txt"), encoding: .utf8)
        let corpus = Set(
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Data/corpus").path)
                .map { String($0.dropLast(5)) })
        var ids: [String] = []
        var urlLines = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.components(separatedBy: " #")[0].trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let match = try #require(line.range(of: #"tt\d{7,8}"#, options: .regularExpression), "\(line)")
            if line.contains("imdb.com/title/") { urlLines += 1 }
            ids.append(String(line[match]))
        }
        let distinct = Set(ids)
        let header =
            "# Counts: \(ids.count) ID lines, \(distinct.count) distinct IDs, "
            + "\(distinct.intersection(corpus).count) in the corpus,\n"
            + "# \(distinct.subtracting(corpus).count) unknown to the stand-in (answered \"Incorrect IMDb ID.\"), "
            + "\(ids.count - distinct.count) duplicate lines."
        #expect(text.contains(header))
        #expect(distinct.intersection(corpus).count >= 270)
        #expect((10...15).contains(distinct.subtracting(corpus).count))
        #expect(urlLines >= 10)
    }
}
