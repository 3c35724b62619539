import Foundation
import Testing

@testable import FilmCacheKit

@Suite struct WorklistFormatTests {
    @Test(arguments: [
        ("tt0172495\ntt0133093\n", WorklistFormat.text),
        ("", .text),
        ("# Position,Const\ntt0172495\n", .text),
        ("Const\ntt0172495\n", .text),
        ("Position,Title\n1,Gladiator\n", .text),
        ("https://www.imdb.com/title/tt0172495/?a=1,2\n", .text),
        ("Position,Const,Created\n1,tt0172495,2023-01-14\n", .csv),
        ("\u{FEFF}\r\n  imdb_id,title\r\ntt0172495,Gladiator\r\n", .csv),
        ("\"Position\",\"Const\"\n\"1\",\"tt0172495\"\n", .csv),
        ("title,TCONST\n", .csv),
        ("[\"tt0172495\"]", .json),
        ("\u{FEFF} \n\t{\"imdbID\": \"tt0172495\"}", .json),
        ("[not json at all", .json),
    ])
    func detectsTheFormatFromContent(text: String, expected: WorklistFormat) {
        #expect(WorklistFormat.detect(Data(text.utf8)) == expected)
    }

    @Test func autoParsesEachFormatAndTheOverrideIsObeyed() throws {
        let dir = TemporaryDirectory()
        let csv = dir.write(
            "list.csv", "Position,Const,Title\n1,tt0172495,\"Gladiator, the film\"\n2,tt0133093,Matrix\n")
        let json = dir.write("list.json", #"[{"imdbID": "tt0944947"}, "tt0172495"]"#)
        let text = dir.write("list.txt", "tt0110912\n")
        let merged = try Worklist.read(paths: [csv, json, text])
        #expect(merged.ids == ["tt0172495", "tt0133093", "tt0944947", "tt0110912"])
        #expect(merged.demand["tt0172495"] == 2)
        #expect(merged.warnings.isEmpty)

        let asText = try WorklistFormat.text.parse(Data(contentsOf: URL(fileURLWithPath: csv)), file: csv)
        #expect(asText.entries.isEmpty)
        #expect(asText.warnings.map(\.line) == [1, 2, 3])
        #expect(asText.warnings.first?.text == "Position,Const,Title")
    }

    @Test func overrideOnTheWrongFormatFailsClearly() {
        let dir = TemporaryDirectory()
        let csv = dir.write("list.csv", "Position,Const\n1,tt0172495\n")
        #expect(throws: WorklistError.noIDs(path: csv, warnings: 2)) { try Worklist.read(paths: [csv], format: .text) }
        #expect {
            try Worklist.read(paths: [csv], format: .json)
        } throws: { error in
            guard case .malformed(let path, _, _, _) = error as? WorklistError else { return false }
            return path == csv
        }
        let text = dir.write("list.txt", "tt0172495\n")
        #expect(throws: WorklistError.noIDColumn(path: text, header: "tt0172495")) {
            try Worklist.read(paths: [text], format: .csv)
        }
    }

    @Test func filesWithoutAnyIDStayErrors() {
        let dir = TemporaryDirectory()
        let csv = dir.write("people.csv", "Position,Const\n1,nm0000128\n2,nm0000151\n")
        #expect(throws: WorklistError.noIDs(path: csv, warnings: 2)) { try Worklist.read(paths: [csv]) }
        let headerOnly = dir.write("header.csv", "Position,Const,Title\n")
        #expect(throws: WorklistError.noIDs(path: headerOnly, warnings: 0)) { try Worklist.read(paths: [headerOnly]) }
        let json = dir.write("empty.json", "[]")
        #expect(throws: WorklistError.noIDs(path: json, warnings: 0)) { try Worklist.read(paths: [json]) }
    }

    /// The sample worklists in `Data/` name the same films in each format they share.
    @Test func sampleWorklistsInDataRead() throws {
        let data = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Data").standardized.path
        let text = try Worklist.read(paths: [data + "/watchlist.txt"])
        let csv = try Worklist.read(paths: [data + "/watchlist.csv"])
        let json = try Worklist.read(paths: [data + "/watchlist.json"])
        #expect(csv.ids.count == 20 && csv.warnings.isEmpty)
        #expect(json.ids.count == 20 && json.warnings.isEmpty)
        #expect(Set(csv.ids).isSubset(of: text.ids) && Set(json.ids).isSubset(of: text.ids))
        #expect(Set(csv.ids).isDisjoint(with: json.ids))
    }
}
