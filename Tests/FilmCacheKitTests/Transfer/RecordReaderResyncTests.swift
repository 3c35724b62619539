import Foundation
import Testing

@testable import FilmCacheKit

/// A filmcache export read with a quote never closed, or a quoted field past the cap: the broken
/// record costs itself only, the reader taking up again at the next record that starts with an ID.
@Suite struct RecordReaderResyncTests {
    let dir = TemporaryDirectory()

    /// The records of `bytes` read as CSV, resyncing at IDs unless `resyncs` is false.
    func records(_ bytes: [UInt8], resyncs: Bool = true, maximumLength: Int = RecordReader.maximumLength) throws
        -> [(text: String, line: Int, tooLong: Bool)]
    {
        let path = dir.file("in-\(UUID().uuidString)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try read(RecordReader.open(path, maximumLength: maximumLength), resyncs: resyncs)
    }

    func records(_ text: String, resyncs: Bool = true, maximumLength: Int = RecordReader.maximumLength) throws
        -> [(text: String, line: Int, tooLong: Bool)]
    {
        try records(Array(text.utf8), resyncs: resyncs, maximumLength: maximumLength)
    }

    func read(_ reader: RecordReader, resyncs: Bool) throws -> [(text: String, line: Int, tooLong: Bool)] {
        reader.resyncsAtIMDbIDs = resyncs
        var out: [(text: String, line: Int, tooLong: Bool)] = []
        while let record = try reader.next(.csv) {
            out.append((String(decoding: record.bytes, as: UTF8.self), record.line, record.tooLong))
        }
        return out
    }

    @Test(arguments: ["\n", "\r\n", "\r"])
    func aQuoteNeverClosedEndsAtTheNextRecordStartWhateverTheLineBreak(_ newline: String) throws {
        let text = ["imdb_id,plot", "tt0000001,\"open", "tt0000002,two", "tt0000003,\"three\"", ""]
            .joined(separator: newline)
        let got = try records(text)
        #expect(got.map(\.text) == ["imdb_id,plot", "tt0000001,\"open", "tt0000002,two", "tt0000003,\"three\""])
        #expect(got.map(\.line) == [1, 2, 3, 4])
        #expect(got.allSatisfy { !$0.tooLong })
    }

    @Test func aQuotedIDStartsARecordToo() throws {
        let got = try records("imdb_id,plot\ntt0000001,\"open\n\"tt0000002\",two\n\"tt12345678\",x\n")
        #expect(got.map(\.text) == ["imdb_id,plot", "tt0000001,\"open", "\"tt0000002\",two", "\"tt12345678\",x"])
        #expect(got.map(\.line) == [1, 2, 3, 4])
    }

    @Test(
        "A quoted line break followed by anything but tt, 7 to 10 digits and a comma stays in its field",
        arguments: [
            "tt123456,x", "tt12345678901,x", "tt1234567 ,x", "xtt1234567,x", "TT1234567,x", "tt1234567",
            "tt1234567;x", "nm1234567,x", " tt1234567,x", "",
        ])
    func onlyARecordStartEndsAQuotedField(_ next: String) throws {
        let got = try records("h\ntt0000001,\"a\n\(next)\nb\",c\ntt0000002,d\n")
        #expect(got.map(\.text) == ["h", "tt0000001,\"a\n\(next)\nb\",c", "tt0000002,d"], "\(next)")
        #expect(got.map(\.line) == [1, 2, 5])
    }

    @Test func withoutResyncAQuotedLineThatLooksLikeARecordStaysInItsField() throws {
        let text = "h\ntt0000001,\"a\ntt0000002,b\",c\ntt0000003,d\n"
        #expect(
            try records(text, resyncs: false).map(\.text) == ["h", "tt0000001,\"a\ntt0000002,b\",c", "tt0000003,d"])
        #expect(try records(text).map(\.text) == ["h", "tt0000001,\"a", "tt0000002,b\",c", "tt0000003,d"])
    }

    @Test func aQuoteNeverClosedAtTheEndOfTheInputIsOneRecord() throws {
        let got = try records("h\ntt0000001,x\ntt0000002,\"open\nmore\nand more")
        #expect(got.map(\.text) == ["h", "tt0000001,x", "tt0000002,\"open\nmore\nand more"])
        #expect(got.map(\.line) == [1, 2, 3])
    }

    @Test func aQuotedFieldPastTheCapIsOneRecordNotOneALine() throws {
        let huge = "tt0000001,\"" + String(repeating: "x\n", count: 500) + "\",tail"
        let got = try records("h\n\(huge)\ntt0000002,ok\n", maximumLength: 100)
        #expect(got.map(\.tooLong) == [false, true, false])
        #expect(got.map(\.line) == [1, 2, 503])
        #expect(got.last?.text == "tt0000002,ok")
        // A field past the cap that is never closed ends at the next record start too.
        let open = "tt0000001,\"" + String(repeating: "x\r\n", count: 500)
        let cut = try records("h\r\n\(open)tt0000002,ok\r\ntt0000003,ok\r\n", maximumLength: 100)
        #expect(cut.map(\.tooLong) == [false, true, false, false])
        #expect(cut.map(\.line) == [1, 2, 502, 503])
        #expect(cut.suffix(2).map(\.text) == ["tt0000002,ok", "tt0000003,ok"])
    }

    /// Where the reader's first chunk ends: it reads 64 KiB at a time.
    static let chunk = 64 << 10

    @Test(
        "The record start looked for after a quoted line break is found across the chunk boundary",
        arguments: Array(-18...3))
    func theLookaheadSplitAcrossTheChunkBoundary(_ offset: Int) throws {
        for newline in ["\n", "\r\n"] {
            let head = "h\ntt0000001,\""
            // The quoted line break stands at `chunk + offset`.
            let padding = String(repeating: "y", count: Self.chunk + offset - head.utf8.count)
            for id in ["tt0000002", "\"tt0000002\"", "tt1234567890"] {
                let text = head + padding + newline + id + ",two\ntt0000003,three\n"
                let got = try records(text)
                #expect(
                    got.map(\.text) == ["h", "tt0000001,\"" + padding, id + ",two", "tt0000003,three"],
                    "offset \(offset), \(newline.debugDescription), \(id)")
                #expect(got.map(\.line) == [1, 2, 3, 4])
            }
            // Not a record start: the line break stays in the field across the boundary.
            let text = head + padding + newline + "tt000000x,two\"\ntt0000003,three\n"
            let got = try records(text)
            #expect(
                got.map(\.text) == ["h", "tt0000001,\"" + padding + newline + "tt000000x,two\"", "tt0000003,three"])
            #expect(got.map(\.line) == [1, 2, 4])
        }
    }

    @Test func aPipeThatHandsOverAFewBytesAtATimeReadsTheSame() throws {
        let text =
            "h\r\n" + (0..<40).map { "tt\(String(format: "%07d", $0)),\"open \($0)\r\nmore\r\n" }.joined()
            + "tt0000099,end\r\n"
        let expected = try records(text)
        #expect(expected.count == 42)
        #expect(expected.dropFirst().dropLast().allSatisfy { $0.text.hasSuffix("\r\nmore") })

        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let writer = fds[1]
        let bytes = Array(text.utf8)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var index = 0
            while index < bytes.count {
                let piece = bytes[index..<min(index + 3, bytes.count)]
                _ = piece.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                index += piece.count
                usleep(50)
            }
            close(writer)
            done.signal()
        }
        let reader = try RecordReader.open("/dev/fd/\(fds[0])")
        let got = try read(reader, resyncs: true)
        done.wait()
        close(fds[0])
        #expect(got.map(\.text) == expected.map(\.text))
        #expect(got.map(\.line) == expected.map(\.line))
    }
}
