import SplitMix

/// OMDb's `plot=full`: the same film with a longer `Plot`.
extension FilmCorpus {
    /// The body `plot=full` answers for `imdbID`: the stored body with two or three sentences added
    /// to its `Plot`, drawn from the ID alone, so the full form differs from the short one on every
    /// film that has a plot and is the same on every call; `N/A` plots stay `N/A`, as on OMDb.
    func fullPlotBody(forID imdbID: String) -> [UInt8]? {
        body(forID: imdbID).map { Self.withFullPlot($0, imdbID: imdbID) }
    }

    /// `body` with the full plot of `imdbID` in its `Plot` value; every other byte is kept.
    static func withFullPlot(_ body: [UInt8], imdbID: String) -> [UInt8] {
        guard let value = plotValueRange(in: body), body[value] != ArraySlice("N/A".utf8) else { return body }
        var generator = SplitMix64(
            seed: imdbID.utf8.reduce(0x5EED) { SplitMix64.derive(seed: $0, index: UInt64($1)) })
        let sentences = generator.pick(generator.int(in: 2...3), of: CorpusVocabulary.fullPlotSentences)
        let added = CompactJSON.quoted(" " + sentences.joined(separator: " ")).utf8.dropFirst().dropLast()
        return Array(body[..<value.upperBound]) + added + body[value.upperBound...]
    }

    /// The bytes between the quotes of the top-level `"Plot"` value, compact or pretty-printed.
    private static func plotValueRange(in body: [UInt8]) -> Range<Int>? {
        let quote = UInt8(ascii: "\"")
        guard let key = body.firstRange(of: Array(#""Plot""#.utf8)) else { return nil }
        var index = key.upperBound
        func skipSpace() {
            while index < body.count, [0x20, 0x09, 0x0A, 0x0D].contains(body[index]) { index += 1 }
        }
        skipSpace()
        guard index < body.count, body[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        skipSpace()
        guard index < body.count, body[index] == quote else { return nil }
        let start = index + 1
        index = start
        while index < body.count, body[index] != quote {
            index += body[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        return index < body.count ? start..<index : nil
    }
}
