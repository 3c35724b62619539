import Foundation
import Testing

@testable import FilmCacheKit

@Suite struct CSVWorklistTests {
    /// IMDb's current list export: quoted commas in titles, descriptions, genres and directors,
    /// a doubled quote, and a Description that runs over three lines.
    static let export = """
        Position,Const,Created,Modified,Description,Title,Original Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,Genres,Num Votes,Release Date,Directors,Your Rating,Date Rated
        1,tt0172495,2023-01-14,2023-01-14,,Gladiator,Gladiator,https://www.imdb.com/title/tt0172495/,Movie,8.5,155,2000,"Action, Adventure, Drama",1603120,2000-05-01,Ridley Scott,9,2023-02-01
        2,tt0133093,2023-01-15,2023-01-16,"Rewatch, then the sequels",The Matrix,The Matrix,https://www.imdb.com/title/tt0133093/,Movie,8.7,136,1999,"Action, Sci-Fi",2000000,1999-03-24,"Lana Wachowski, Lilly Wachowski",,
        3,tt0944947,2023-01-20,2023-01-20,"Start with ""Winter Is Coming"",
        skip season 8,
        or don't",Game of Thrones,Game of Thrones,https://www.imdb.com/title/tt0944947/,TV Series,9.2,57,2011,"Action, Adventure, Drama",2200000,2011-04-17,,,
        4,tt0110912,2023-02-02,2023-02-02,,"Pulp Fiction, the director's cut",Pulp Fiction,https://www.imdb.com/title/tt0110912/,Movie,8.9,154,1994,"Crime, Drama",2100000,1994-10-14,Quentin Tarantino,,
        5,nm0000128,2023-02-03,2023-02-03,,Russell Crowe,Russell Crowe,https://www.imdb.com/name/nm0000128/,,,,,,,,,,
        6,tt1'; DROP TABLE films;--,2023-02-04,2023-02-04,,Injected,,,,,,,,,,,,
        7

        8,tt12345678,2023-02-05,2023-02-05,,A Newer Title,A Newer Title,https://www.imdb.com/title/tt12345678/,Movie,,,2024,,,,,,

        """

    @Test func readsARealShapedIMDbExport() throws {
        let parsed = try CSVWorklist.parse(Data(Self.export.utf8), file: "export.csv")
        #expect(parsed.entries.map(\.imdbID) == ["tt0172495", "tt0133093", "tt0944947", "tt0110912", "tt12345678"])
        #expect(parsed.entries.map(\.line) == [2, 3, 4, 7, 12])
        #expect(
            parsed.warnings == [
                WorklistWarning(
                    file: "export.csv", line: 8, text: "nm0000128", reason: "Const is not an IMDb title ID"),
                WorklistWarning(
                    file: "export.csv", line: 9, text: "tt1'; DROP TABLE films;--",
                    reason: "Const is not an IMDb title ID"),
                WorklistWarning(file: "export.csv", line: 10, text: "7", reason: "record has no Const or Title field"),
            ])
        #expect(parsed.warnings[0].description == #"export.csv:8: Const is not an IMDb title ID, skipped: "nm0000128""#)
    }

    @Test func readsTheOlderHeaderWithCRLFAndABOM() throws {
        let text =
            "\u{FEFF}Position,Const,Created,Modified,Description,Title,URL,Title Type,IMDb Rating,Runtime (mins),Year,"
            + "Genres,Num Votes,Release Date,Directors\r\n"
            + "1,tt0050083,2019-06-01,2019-06-01,\"Jury room, one set\",12 Angry Men,"
            + "https://www.imdb.com/title/tt0050083/,movie,9.0,96,1957,Drama,800000,1957-04-10,Sidney Lumet\r\n"
            + "2,tt0068646,2019-06-02,2019-06-02,\"Line one\r\nline two\",\"Godfather, The\","
            + "https://www.imdb.com/title/tt0068646/,movie,9.2,175,1972,\"Crime, Drama\",1900000,1972-03-14,"
            + "Francis Ford Coppola\r\n"
            + "3,tt0071562,2019-06-03,2019-06-03,,The Godfather Part II,https://www.imdb.com/title/tt0071562/,movie,"
            + "9.0,202,1974,\"Crime, Drama\",1300000,1974-12-12,Francis Ford Coppola\r\n"
        let parsed = try CSVWorklist.parse(Data(text.utf8), file: "old.csv")
        #expect(parsed.entries.map(\.imdbID) == ["tt0050083", "tt0068646", "tt0071562"])
        #expect(parsed.entries.map(\.line) == [2, 3, 5])
        #expect(parsed.warnings.isEmpty)
    }

    @Test(
        arguments: [
            ("imdbID,title\ntt0172495,Gladiator\n", "tt0172495"),
            ("title,IMDB_ID\n\"Gladiator, extended\",tt0172495\n", "tt0172495"),
            ("tconst\ttitleType,primaryTitle\n", nil),
            ("Title, TConst \nGladiator, tt0172495 \n", "tt0172495"),
            ("imdb_id,Const\nnm0000001,tt0172495\n", "tt0172495"),
        ] as [(String, String?)])
    func findsTheIDColumnByItsOtherNames(text: String, expected: String?) throws {
        let parsed = try? CSVWorklist.parse(Data(text.utf8), file: "other.csv")
        #expect(parsed?.entries.map(\.imdbID) == expected.map { [$0] })
    }

    @Test func aHeaderWithoutAnIDColumnIsAnErrorNamingFileAndHeader() {
        let text = "Position,Label,Year\n1,Gladiator,2000\n"
        #expect(throws: WorklistError.noIDColumn(path: "list.csv", header: "Position,Label,Year")) {
            try CSVWorklist.parse(Data(text.utf8), file: "list.csv")
        }
        let message = WorklistError.noIDColumn(path: "list.csv", header: "Position,Label,Year").description
        #expect(message.contains("list.csv") && message.contains("Position,Label,Year"))
    }

    /// Letterboxd's `diary.csv` shape: quotes, commas and accents in names, a rewatch, a row with no name.
    static let letterboxdDiary = #"""
        Date,Name,Year,Letterboxd URI,Rating,Rewatch,Tags,Watched Date
        2024-01-02,Heat,1995,https://boxd.it/2bf0,4.5,,,2024-01-01
        2024-01-03,"Crouching Tiger, Hidden Dragon",2000,https://boxd.it/1Zd4,4,,,2024-01-02
        2024-01-04,Amélie,2001,https://boxd.it/1Tq8,5,,"paris, comfort",2024-01-03
        2024-01-05,"The ""Burbs""",1989,https://boxd.it/1xY2,3,,,2024-01-04
        2024-01-06,Heat,1995,https://boxd.it/2bf0,5,Yes,,2024-01-05
        2024-01-07,,2003,https://boxd.it/9zz9,3,,,2024-01-06
        2024-01-08,Untitled Project,,https://boxd.it/8yy8,,,,2024-01-07
        """#

    @Test func readsALetterboxdExportByTitleAndYear() throws {
        let parsed = try CSVWorklist.parse(Data(Self.letterboxdDiary.utf8), file: "diary.csv")
        #expect(parsed.kind == "Letterboxd export")
        #expect(parsed.ids.isEmpty)
        #expect(
            parsed.titles.map(\.query.description) == [
                #""Heat" (1995)"#, #""Crouching Tiger, Hidden Dragon" (2000)"#, #""Amélie" (2001)"#,
                #""The \"Burbs\"" (1989)"#, #""Heat" (1995)"#, #""Untitled Project""#,
            ])
        #expect(parsed.titles.map(\.line) == [2, 3, 4, 5, 6, 8])
        #expect(parsed.titles[0].query.key == parsed.titles[4].query.key, "a rewatch is the same film")
        #expect(parsed.warnings.map(\.line) == [7] && parsed.warnings[0].reason == "record has no Name field")
        #expect(WorklistFormat.detect(Data(Self.letterboxdDiary.utf8)) == .csv)
    }

    @Test func aGenericTitleListAndAnExportRowWithoutAnIDAreReadByTitle() throws {
        let list = try CSVWorklist.parse(
            Data("Title,Year,Type\nThe Wire,2002,TV Series\nFargo,1996,\n".utf8), file: "l.csv")
        #expect(list.kind == "CSV")
        #expect(list.titles.map(\.query.description) == [#""The Wire" (2002) [series]"#, #""Fargo" (1996)"#])
        let export = try CSVWorklist.parse(
            Data("Const,Title,Year\ntt0172495,Gladiator,2000\n,Heat,1995\n".utf8), file: "e.csv")
        #expect(export.ids == ["tt0172495"] && export.titles.map(\.query.title) == ["Heat"])
    }

    @Test func anUnclosedQuoteIsAnErrorAtTheLineItOpens() {
        let text = "Position,Const,Description\n1,tt0172495,fine\n2,tt0133093,\"never closed,\n3,tt0944947,\n"
        #expect(
            throws: WorklistError.malformed(
                path: "open.csv", line: 3, reason: "a quoted field opened here is never closed")
        ) {
            try CSVWorklist.parse(Data(text.utf8), file: "open.csv")
        }
        #expect(
            WorklistError.malformed(path: "open.csv", line: 3, reason: "a quoted field opened here is never closed")
                .description == "worklist open.csv:3: a quoted field opened here is never closed")
    }

    @Test func readerKeepsGoingWhereRFC4180IsStrict() throws {
        var reader = CSVReader(Array("a\"b,\"c\"d,\"\"\"\"\r\r\n\"x\ny\"\rlast".utf8))
        #expect(try reader.next() == CSVReader.Record(fields: ["a\"b", "cd", "\""], line: 1))
        #expect(try reader.next() == CSVReader.Record(fields: [""], line: 2))
        #expect(try reader.next() == CSVReader.Record(fields: ["x\ny"], line: 3))
        #expect(try reader.next() == CSVReader.Record(fields: ["last"], line: 5))
        #expect(try reader.next() == nil)
    }
}
