import Foundation
import Logging
import SplitMix
import Testing

@testable import FilmCacheKit

/// JSON lines: one object per line that any JSON parser reads back to the same strings.
@Suite struct JSONLogHandlerTests {
    /// What the handler wrote.
    let lines = LineCollector()

    /// A logger at trace level through the handler under test, at a fixed time.
    func logger() -> Logger {
        var logger = Logger(label: "filmcache") { [lines] in
            LineLogHandler(label: $0, format: .json, now: { LogfmtLogHandlerTests.instant }, write: lines.write)
        }
        logger.logLevel = .trace
        return logger
    }

    /// `line` read back by Foundation's JSON parser.
    func parsed(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aLineIsOneObjectWithTimeLevelMessageFirst() {
        logger().info("plan", metadata: ["considered": "292", "to_fetch": "280"])
        #expect(
            lines.lines == [
                #"{"ts":"2026-11-21T03:17:00Z","level":"info","msg":"plan","considered":"292","to_fetch":"280"}"#
            ])
    }

    @Test func awkwardStringsSurviveTheRoundTrip() throws {
        let samples = [
            #"say "hi""#, #"C:\dir\"#, "line\nbreak\r\n", "tab\t", "\u{00}\u{01}\u{08}\u{0C}\u{1F}\u{7F}",
            "ünïcödé – “quotes” 🎬", "</script>", "\u{2028}\u{2029}", "",
        ]
        for sample in samples {
            logger().warning("\(sample)", metadata: ["value": "\(sample)", "\(sample)key": "k"])
        }
        #expect(lines.lines.count == samples.count)
        for (line, sample) in zip(lines.lines, samples) {
            #expect(!line.contains("\n") && !line.contains("\r"), "one event, one line")
            let object = try parsed(line)
            #expect(object["msg"] as? String == sample)
            #expect(object["value"] as? String == sample)
            #expect(object[sample + "key"] as? String == "k")
        }
    }

    @Test func generatedStringsRoundTrip() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let scalars = (0..<Int(rng.next() % 24)).compactMap { _ -> Unicode.Scalar? in
                switch rng.next() % 4 {
                case 0: Unicode.Scalar(UInt32(rng.next() % 0x20))
                case 1: Unicode.Scalar(UInt32(0x20 + rng.next() % 0x60))
                case 2: Unicode.Scalar(UInt32(0xA0 + rng.next() % 0x2000))
                default: Unicode.Scalar(UInt32(0x1F300 + rng.next() % 0x100))
                }
            }
            let text = String(String.UnicodeScalarView(scalars))
            lines.write(LineLogHandler.line(record(text), format: .json))
            let object = try parsed(lines.lines.last ?? "")
            #expect(object["msg"] as? String == text)
        }
    }

    /// A record of an info event with `message`.
    func record(_ message: String) -> LogRecord {
        LogRecord(
            event: LogEvent(
                level: .info, message: "\(message)", metadata: nil, source: nil, file: #fileID, function: #function,
                line: #line),
            metadata: [:], provider: nil, date: LogfmtLogHandlerTests.instant)
    }

    @Test func nestedMetadataBecomesArraysAndObjects() throws {
        logger().debug("x", metadata: ["ids": ["tt1", "tt2"], "counts": ["b": "2", "a": "1"]])
        let line = try #require(lines.lines.first)
        #expect(line.hasSuffix(#","counts":{"a":"1","b":"2"},"ids":["tt1","tt2"]}"#))
        let object = try parsed(line)
        #expect(object["ids"] as? [String] == ["tt1", "tt2"])
    }

    @Test func reservedNamesAndAPIKeysAreHandledAsInLogfmt() throws {
        logger().error("GET /?apikey=abcd1234&i=tt1", metadata: ["ts": "fake"])
        let object = try parsed(try #require(lines.lines.first))
        #expect(object["ts"] as? String == "2026-11-21T03:17:00Z" && object["meta_ts"] as? String == "fake")
        #expect(object["msg"] as? String == "GET /?apikey=REDACTED&i=tt1")
    }
}
