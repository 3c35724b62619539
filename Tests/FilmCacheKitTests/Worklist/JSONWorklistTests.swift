import Foundation
import Testing

@testable import FilmCacheKit

@Suite struct JSONWorklistTests {
    @Test(arguments: [
        #"["tt0172495", "tt0133093"]"#,
        #"[{"imdbID": "tt0172495", "Title": "Gladiator"}, {"imdb_id": "tt0133093"}]"#,
        #"[{"ids": {"imdb": "tt0172495", "tmdb": 98}}, {"title": "x", "imdb_id": "tt0133093"}]"#,
        #"""
        [
          {"rank": 1, "listed_at": "2024-01-02T10:00:00.000Z", "type": "movie",
           "movie": {"title": "Gladiator", "year": 2000, "ids": {"trakt": 1, "imdb": "tt0172495", "tmdb": 98}}},
          {"rank": 2, "type": "show", "show": {"title": "The Matrix?", "ids": {"imdb": "tt0133093"}}}
        ]
        """#,
        #"[{"movie": {"ids": {"imdb": "tt0172495"}}}, {"show": {"ids": {"imdb": "tt0133093"}}}]"#,
        "\u{FEFF}  [\"tt0172495\",\r\n\"tt0133093\"]  ",
    ])
    func readsEachShape(text: String) throws {
        let parsed = try JSONWorklist.parse(Data(text.utf8), file: "w.json")
        #expect(parsed.entries.map(\.imdbID) == ["tt0172495", "tt0133093"])
        #expect(parsed.warnings.isEmpty)
    }

    @Test func trakEpisodesUseTheEpisodeNotTheirShow() throws {
        let text = #"""
            [{"type": "episode", "episode": {"season": 1, "number": 1, "ids": {"imdb": "tt1480055"}},
              "show": {"ids": {"imdb": "tt0944947"}}},
             {"type": "episode", "episode": {"ids": {"imdb": null}}, "show": {"ids": {"imdb": "tt0944947"}}},
             {"episode": {"ids": {"imdb": "tt1668746"}}, "show": {"ids": {"imdb": "tt0944947"}}}]
            """#
        let parsed = try JSONWorklist.parse(Data(text.utf8), file: "trakt.json")
        #expect(parsed.entries.map(\.imdbID) == ["tt1480055", "tt1668746"])
        #expect(parsed.warnings.map(\.reason) == ["element 2 has no imdbID, imdb_id, ids.imdb or title"])
    }

    @Test func eachBadElementIsOneWarningAtTheLineItStarts() throws {
        let text = """
            [
              "tt0172495",
              "nm0000128",
              {"imdbID": "tt1'; DROP TABLE films;--"},
              {"label": "no id",
               "year": 2000},
              {"movie": {"ids": {"imdb": 172495}}}, 42, null, [], "tt0133093"
            ]
            """
        let parsed = try JSONWorklist.parse(Data(text.utf8), file: "bad.json")
        #expect(parsed.entries.map(\.imdbID) == ["tt0172495", "tt0133093"])
        #expect(parsed.entries.map(\.line) == [2, 7])
        let expected: [(Int, String, String)] = [
            (3, "nm0000128", "element 2 is not an IMDb title ID"),
            (4, "tt1'; DROP TABLE films;--", "element 3: imdbID is not an IMDb title ID"),
            (5, "{\"label\": \"no id\",\n   \"year\": 2000}", "element 4 has no imdbID, imdb_id, ids.imdb or title"),
            (7, #"{"movie": {"ids": {"imdb": 172495}}}"#, "element 5: movie.ids.imdb is not a string"),
            (7, "42", "element 6 has no imdbID, imdb_id, ids.imdb or title"),
            (7, "null", "element 7 has no imdbID, imdb_id, ids.imdb or title"),
            (7, "[]", "element 8 has no imdbID, imdb_id, ids.imdb or title"),
        ]
        #expect(parsed.warnings.map(\.line) == expected.map(\.0))
        #expect(parsed.warnings.map(\.text) == expected.map(\.1))
        #expect(parsed.warnings.map(\.reason) == expected.map(\.2))
        #expect(parsed.warnings.allSatisfy { $0.file == "bad.json" })
        #expect(
            parsed.warnings[0].description == #"bad.json:3: element 2 is not an IMDb title ID, skipped: "nm0000128""#)
        // An element's own JSON text is shown once, on one line: not quoted and escaped a second time.
        #expect(
            parsed.warnings[2].description
                == #"bad.json:5: element 4 has no imdbID, imdb_id, ids.imdb or title, skipped: {"label": "no id", "year": 2000}"#
        )
    }

    @Test func objectsWithATitleAndNoIDNameTheirFilmByTitle() throws {
        let text = #"""
            [{"title": "Heat", "year": 1995},
             {"Title": "Amélie", "Year": "2001", "Type": "movie"},
             {"name": "Fargo"},
             {"type": "show", "show": {"title": "The Wire", "year": 2002, "ids": {"imdb": null}}},
             {"title": "Heat", "year": 1995, "imdbID": "tt0113277"}]
            """#
        let parsed = try JSONWorklist.parse(Data(text.utf8), file: "titles.json")
        #expect(parsed.entries.map(\.imdbID) == ["tt0113277"], "an ID wins over a title")
        #expect(
            parsed.titles.map(\.query.description) == [
                #""Heat" (1995)"#, #""Amélie" (2001) [movie]"#, #""Fargo""#, #""The Wire" (2002) [series]"#,
            ])
        #expect(parsed.titles.map(\.line) == [1, 2, 3, 4])
        #expect(parsed.warnings.isEmpty)
    }

    @Test func aSyntaxErrorIsNamedByLineAndColumn() {
        let text = "[\n  \"tt0172495\",\n  x\n]"
        #expect(
            throws: WorklistError.malformed(
                path: "bad.json", line: 3, column: 3, reason: "not valid JSON: invalid value")
        ) {
            try JSONWorklist.parse(Data(text.utf8), file: "bad.json")
        }
        let message = WorklistError.malformed(
            path: "bad.json", line: 3, column: 3, reason: "not valid JSON: invalid value")
        #expect(message.description == "worklist bad.json:3:3: not valid JSON: invalid value")
    }

    @Test(
        arguments: [
            ("[\"tt0172495\",", 1, "not valid JSON"),
            ("{\"imdbID\": \"tt0172495\"}", nil, "expected a JSON array of IDs or objects at the top level"),
            ("[\"tt0172495\"]\n\u{0}", 2, "NUL byte: not JSON text"),
            ("\n" + String(repeating: "[", count: 65), 2, "JSON nests deeper than 64 levels"),
        ] as [(String, Int?, String)])
    func malformedDocumentsAreErrorsNamingTheFile(text: String, line: Int?, reason: String) {
        #expect {
            try JSONWorklist.parse(Data(text.utf8), file: "broken.json")
        } throws: { error in
            guard case .malformed(let path, let errorLine, _, let errorReason) = error as? WorklistError else {
                return false
            }
            return path == "broken.json" && errorLine == line && errorReason.hasPrefix(reason)
        }
    }

    @Test func invalidUTF8IsMalformedNotACrash() {
        let bytes: [UInt8] = Array("[\"tt0172495\", \"".utf8) + [0xFF, 0xFE, 0xC0] + Array("\"]".utf8)
        #expect(throws: WorklistError.self) { try JSONWorklist.parse(Data(bytes), file: "bytes.json") }
    }
}
