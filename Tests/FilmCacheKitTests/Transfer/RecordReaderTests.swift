import Foundation
import Testing

@testable import FilmCacheKit

/// Lines and CSV records read as they stream, with the line each starts on.
@Suite struct RecordReaderTests {
    let dir = TemporaryDirectory()

    func records(_ text: String, _ mode: RecordReader.Mode, maximumLength: Int = RecordReader.maximumLength) throws
        -> [(String, Int, Bool)]
    {
        let reader = try RecordReader.open(dir.write("in", text), maximumLength: maximumLength)
        var out: [(String, Int, Bool)] = []
        while let record = try reader.next(mode) {
            out.append((String(decoding: record.bytes, as: UTF8.self), record.line, record.tooLong))
        }
        return out
    }

    @Test func linesEndAtLFCRLFAndLoneCR() throws {
        let got = try records("\u{FEFF}a\nb\r\nc\rd", .lines)
        #expect(got.map(\.0) == ["a", "b", "c", "d"])
        #expect(got.map(\.1) == [1, 2, 3, 4])
        #expect(try records("a\n\nb\n", .lines).map(\.0) == ["a", "", "b"])
    }

    @Test func quotedLineBreaksStayInTheirCSVRecord() throws {
        let text = "h1,h2\r\n\"one\r\ntwo\",x\r\n\"a \"\"q\"\"\nb\",y\nplain\"quote,z\n\"\"\n"
        let got = try records(text, .csv)
        #expect(got.map(\.0) == ["h1,h2", "\"one\r\ntwo\",x", "\"a \"\"q\"\"\nb\",y", "plain\"quote,z", "\"\""])
        #expect(got.map(\.1) == [1, 2, 4, 6, 7])
    }

    @Test func recordsAcrossChunksAndLongerThanTheLimit() throws {
        let long = String(repeating: "x", count: 200_000)
        let text = "a\n\(long)\n\"\(long)\n\(long)\",y\nz\n"
        let got = try records(text, .csv)
        #expect(got.map(\.0) == ["a", long, "\"\(long)\n\(long)\",y", "z"])
        #expect(got.map(\.1) == [1, 2, 3, 5])
        // Past the limit the quoted record ends at its next line break; the rest is one more record.
        let cut = try records(text, .csv, maximumLength: 100_000)
        #expect(cut.map(\.2) == [false, true, true, true, false])
        #expect(cut.map(\.1) == [1, 2, 3, 4, 5])
        #expect(cut.last?.0 == "z")
    }

    @Test func anUnclosedQuoteCostsOneRecordOnceItIsTooLong() throws {
        let text = "\"open\n" + String(repeating: "line\n", count: 50) + "last\n"
        let got = try records(text, .csv, maximumLength: 100)
        #expect(got.first?.2 == true)
        #expect(got.last?.0 == "last")
    }

    @Test func theFirstSignificantByteIsPeekedNotConsumed() throws {
        let reader = try RecordReader.open(dir.write("in", "\u{FEFF}\n  \r\n {\"a\":1}\n"))
        #expect(try reader.firstSignificantByte() == UInt8(ascii: "{"))
        var lines: [Int] = []
        while let record = try reader.next(.lines) { lines.append(record.line) }
        #expect(lines == [1, 2, 3])
        let empty = try RecordReader.open(dir.write("empty", " \n\n"))
        #expect(try empty.firstSignificantByte() == nil)
    }

    @Test func missingFilesAndDirectoriesSayWhy() throws {
        #expect(throws: TransferError.self) { try RecordReader.open(dir.file("absent")) }
        let directory = try RecordReader.open(dir.path)
        do {
            _ = try directory.next(.lines)
            Issue.record("a directory read")
        } catch {
            #expect(error.description.contains("Is a directory"))
        }
    }
}
