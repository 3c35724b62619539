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

    /// Bare IDs are packed from the line's bytes: each comes back as written, zeros and all, with its line.
    @Test func bareIDsComeBackAsWrittenWithTheirLines() {
        let text = "tt0000001\n  tt1234567\t\n\ntt12345678\r\ntt1234567890\ntt9999999999\nTT0068646\ntt123456\n"
        let parsed = PlainTextWorklist.parse(Data(text.utf8), file: "w.txt")
        #expect(
            parsed.entries.map(\.imdbID) == [
                "tt0000001", "tt1234567", "tt12345678", "tt1234567890", "tt9999999999", "tt0068646",
            ])
        #expect(parsed.entries.map(\.line) == [1, 2, 4, 5, 6, 7])
        #expect(parsed.warnings == [WorklistWarning(file: "w.txt", line: 8, text: "tt123456")])
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

    @Test func aFileThatGivesNothingAmongOthersIsAWarningAndOnlyAllEmptyIsAnError() throws {
        let dir = TemporaryDirectory()
        let good = dir.write("good.txt", "tt0000001\n")
        let empty = dir.write("empty.txt", "# nothing here\n")
        let broken = dir.write("broken.txt", "tt12\n")
        let worklist = try Worklist.read(paths: [empty, good, broken])
        #expect(worklist.ids == ["tt0000001"])
        #expect(
            worklist.emptyFiles == [
                "worklist \(empty) names no IMDb ID or title; the other worklists are used",
                "worklist \(broken) names no IMDb ID or title (1 entry could not be read); the other worklists are used",
            ])
        #expect(worklist.warnings.map(\.line) == [1], "the broken file's line is still reported")
        #expect(throws: WorklistError.noIDs(path: empty, warnings: 0)) { try Worklist.read(paths: [empty, broken]) }
    }

    @Test func linesNameFilmsByTitleAndYear() {
        let text = """
            Heat (1995)
            Crouching Tiger, Hidden Dragon (2000)
            Amélie  (2001)
            Se7en (1995)
            tt0068646
            Fargo
            """
        let parsed = PlainTextWorklist.parse(Data(text.utf8), file: "w.txt")
        #expect(parsed.ids == ["tt0068646"])
        #expect(
            parsed.titles.map(\.query.description) == [
                #""Heat" (1995)"#, #""Crouching Tiger, Hidden Dragon" (2000)"#, #""Amélie" (2001)"#, #""Se7en" (1995)"#,
            ])
        #expect(parsed.titles.map(\.line) == [1, 2, 3, 4])
        // In a list of IDs, a line of words without a year is more likely a slip than a film to pay for.
        #expect(parsed.warnings.map(\.line) == [6])
        #expect(parsed.warnings[0].reason.contains("needs its year"))
    }

    @Test func aListOfTitlesAloneNamesEachLine() {
        let text = "# to watch\nThe Thing\n2001: A Space Odyssey\nHeat (1995)\n\nLa Haine # a comment\n"
        let parsed = PlainTextWorklist.parse(Data(text.utf8), file: "w.txt")
        #expect(parsed.titles.map(\.query.title) == ["The Thing", "2001: A Space Odyssey", "Heat", "La Haine"])
        #expect(parsed.titles.map(\.line) == [2, 3, 4, 6])
        #expect(parsed.warnings.isEmpty)
    }

    @Test(arguments: [
        "tt12", "TT0068646x", "nm0000128", "1,tt0172495", "https://example.com/film", "www.imdb.com/name/nm1/",
        "Heat,1995", "a\tb", "1917", "x\u{7}y", "bad \u{FFFD} bytes", String(repeating: "word ", count: 70),
    ])
    func whatLooksLikeAMistakeIsNeverATitle(line: String) {
        let parsed = PlainTextWorklist.parse(Data((line + "\n").utf8), file: "w.txt")
        #expect(parsed.titles.isEmpty && parsed.ids.isEmpty)
        #expect(parsed.warnings.count == 1)
    }

    @Test func titlesAreKeyedIgnoringCaseAccentsAndPunctuation() throws {
        let a = try #require(TitleQuery(title: "Amélie", year: 2001))
        let b = try #require(TitleQuery(title: "  AMELIE ", year: 2001))
        #expect(a.key == b.key && a.key.title == "amelie")
        #expect(TitleQuery.normalize("Spider-Man: No Way Home") == "spider man no way home")
        #expect(TitleQuery.normalize("Ｆｕｌｌ  Width!") == "full width")
        #expect(TitleQuery(title: " -- ") == nil, "nothing to ask")
        #expect(TitleQuery(title: "Heat", year: 95)?.year == nil, "95 is no film's year")
        #expect(
            try #require(TitleQuery(title: "Amélie & Co?", year: 2001, type: "TV Series")).requestQuery
                == "t=Am%C3%A9lie%20%26%20Co%3F&y=2001&type=series")
    }
}
