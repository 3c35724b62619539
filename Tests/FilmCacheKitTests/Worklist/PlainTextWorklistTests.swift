import Foundation
import Testing

@testable import FilmCacheKit

@Suite struct PlainTextWorklistTests {
    @Test(arguments: [
        ("tt0172495", "tt0172495"),
        ("  tt0172495  ", "tt0172495"),
        ("tt12345678", "tt12345678"),
        ("https://www.imdb.com/title/tt0172495/", "tt0172495"),
        ("https://m.imdb.com/title/tt0172495/?ref_=nv_sr_1", "tt0172495"),
        ("imdb.com/title/tt0172495", "tt0172495"),
        ("http://www.IMDb.com/title/tt0172495/reviews", "tt0172495"),
        ("tt0172495  # Gladiator", "tt0172495"),
        ("https://www.imdb.com/de/title/tt0468569/", "tt0468569"),
        ("https://m.imdb.com/pt-br/title/tt0468569/?ref_=fn_al_tt_1", "tt0468569"),
        ("TT0133093", "tt0133093"),
        ("https://www.imdb.com/title/TT0133093/", "tt0133093"),
        ("tt0068646 The Godfather", "tt0068646"),
        ("tt0068646\tThe Godfather (1972)", "tt0068646"),
    ])
    func readsIDsAndURLs(line: String, expected: String) {
        let parsed = PlainTextWorklist.parse(Data(line.utf8), file: "w.txt")
        #expect(parsed.entries.map(\.imdbID) == [expected])
        #expect(parsed.warnings.isEmpty)
    }

    @Test(arguments: [
        "tt123", "nm0000128", "tt0172495x", "172495", "https://example.com/title/tt0172495/",
        "tt1'; DROP TABLE films;--",
        "gladiator tt0172495",
        "https://www.imdb.com/name/nm0000128/", "https://www.imdb.com/de/name/tt0172495/",
        "https://www.imdb.com/de/fr/title/tt0172495/", "Tt", "TT0172495X", "ttt0172495",
    ])
    func rejectsWhatIsNotAnID(line: String) {
        let parsed = PlainTextWorklist.parse(Data(line.utf8), file: "w.txt")
        #expect(parsed.entries.isEmpty)
        #expect(parsed.warnings == [WorklistWarning(file: "w.txt", line: 1, text: line)])
    }

    @Test func aLineStartingWithAnIDGivesEveryIDAmongItsFields() {
        let text = "tt0468569,tt0050083\ntt0111161; TT0068646 | tt0110912 Pulp Fiction\n"
        let parsed = PlainTextWorklist.parse(Data(text.utf8), file: "w.txt")
        #expect(parsed.entries.map(\.imdbID) == ["tt0468569", "tt0050083", "tt0111161", "tt0068646", "tt0110912"])
        #expect(parsed.entries.map(\.line) == [1, 1, 2, 2, 2])
        #expect(parsed.warnings.isEmpty)
    }

    @Test func aJSONListOfStringsTakesURLsAsTextLinesDo() throws {
        let json = #"["https://www.imdb.com/de/title/tt0468569/", "TT0050083", "tt0111161", "banana"]"#
        let parsed = try WorklistFormat.auto.parse(Data(json.utf8), file: "w.json")
        #expect(parsed.entries.map(\.imdbID) == ["tt0468569", "tt0050083", "tt0111161"])
        #expect(parsed.warnings.count == 1)
    }

    @Test func skipsCommentsAndBlanksAndReportsLineNumbers() {
        let text = "\u{FEFF}# my list\r\ntt0000001\r\n\r\n   # indented comment\r\nnot an id\r\ntt0000002 # two\r\n"
        let parsed = PlainTextWorklist.parse(Data(text.utf8), file: "list.txt")
        #expect(parsed.entries.map(\.imdbID) == ["tt0000001", "tt0000002"])
        #expect(parsed.entries.map(\.line) == [2, 6])
        #expect(parsed.warnings.map(\.line) == [5])
        #expect(parsed.warnings.first?.description.hasPrefix("list.txt:5:") == true)
    }

    /// Lowercasing "Ⱥ" makes it a byte longer, so a match found in a lowercased copy lands past the end of the line.
    @Test(
        arguments: [
            ("ȺȺȺȺȺȺimdb.com/title/", nil),
            ("ȺȺȺȺȺȺimdb.com/title/tt0172495", "tt0172495"),
            ("https://www.İMDB.com/title/tt0172495/", nil),
            ("https://www.IMDB.COM/TITLE/tt0172495/", "tt0172495"),
        ] as [(String, String?)])
    func urlsWithCaseChangingLettersNeitherCrashNorMisread(line: String, expected: String?) {
        #expect(PlainTextWorklist.imdbID(in: line) == expected)
    }

    @Test func onlyLineFeedsAndCarriageReturnsEndLines() {
        let text = "tt0000001\u{0C}\u{0B}\ntt0000002\u{2028}x\rtt0000003\u{85}\r\nnot an id\n"
        let parsed = PlainTextWorklist.parse(Data(text.utf8), file: "w.txt")
        #expect(parsed.entries.map(\.imdbID) == ["tt0000001", "tt0000003"])
        #expect(parsed.entries.map(\.line) == [1, 3])
        #expect(parsed.warnings.map(\.line) == [2, 4])
    }

    @Test func mergesFilesDeduplicatingAndCountingDemand() throws {
        let dir = TemporaryDirectory()
        let a = dir.write("a.txt", "tt0000001\ntt0000002\ntt0000001\n")
        let b = dir.write("b.txt", "tt0000002\nhttps://www.imdb.com/title/tt0000003/\n")
        let worklist = try Worklist.read(paths: [a, b])
        #expect(worklist.ids == ["tt0000001", "tt0000002", "tt0000003"])
        #expect(worklist.demand == ["tt0000001": 1, "tt0000002": 2, "tt0000003": 1])
        #expect(worklist.entryCount == 5)
    }

    @Test func fileWithoutIDsAndMissingFileAreErrorsNamingThePath() {
        let dir = TemporaryDirectory()
        let empty = dir.write("empty.txt", "# nothing here\n\n")
        #expect(throws: WorklistError.noIDs(path: empty, warnings: 0)) { try Worklist.read(paths: [empty]) }
        let missing = dir.file("missing.txt")
        #expect {
            try Worklist.read(paths: [missing])
        } throws: { error in
            (error as? WorklistError)?.description.contains(missing) == true
        }
    }
}
