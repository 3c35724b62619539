import Foundation
import Logging
import Testing

@testable import FilmCacheKit

/// logfmt lines: layout, quoting, escaping, merging and redaction.
@Suite struct LogfmtLogHandlerTests {
    /// 2026-11-21T03:17:00Z.
    static let instant = Date(timeIntervalSince1970: 1_795_231_020)
    /// What the handler wrote.
    let lines = LineCollector()

    /// A logger at trace level through the handler under test, at a fixed time.
    func logger() -> Logger {
        var logger = Logger(label: "filmcache") { [lines] in
            LineLogHandler(label: $0, format: .logfmt, now: { Self.instant }, write: lines.write)
        }
        logger.logLevel = .trace
        return logger
    }

    @Test func aLineHasTimeLevelQuotedMessageAndSortedFields() {
        logger().info("plan", metadata: ["to_fetch": "280", "considered": "292", "calls_left": "950"])
        #expect(
            lines.lines == [
                #"ts=2026-11-21T03:17:00Z level=info msg="plan" calls_left=950 considered=292 to_fetch=280"#
            ])
    }

    @Test(arguments: [
        ("tt0172495", "tt0172495"),
        ("", #""""#),
        ("two words", #""two words""#),
        ("a=b", #""a=b""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"C:\dir"#, #""C:\\dir""#),
        ("line\nbreak", #""line\nbreak""#),
        ("cr\rlf", #""cr\rlf""#),
        ("tab\there", #""tab\there""#),
        ("bell\u{07}", #""bell\u0007""#),
        ("del\u{7F}", #""del\u007f""#),
        ("c1\u{9B}2J", #""c1\u009b2J""#),
        ("bidi\u{202E}txt", #""bidi\u202etxt""#),
        ("isolate\u{2066}", #""isolate\u2066""#),
        ("ünïcödé–dash", "ünïcödé–dash"),
        ("HTTP 503: Service Unavailable (attempt 2)", #""HTTP 503: Service Unavailable (attempt 2)""#),
    ])
    func valuesAreQuotedAndEscapedOnlyWhenTheyMustBe(value: String, written: String) {
        logger().notice("x", metadata: ["v": "\(value)"])
        #expect(lines.lines == [#"ts=2026-11-21T03:17:00Z level=notice msg="x" v="# + written])
    }

    @Test func theMessageIsEscapedLikeAValue() {
        logger().warning("tt0000001.txt:3: \"no ID\"\nnext")
        #expect(lines.lines.first?.hasSuffix(#"msg="tt0000001.txt:3: \"no ID\"\nnext""#) == true)
        #expect(lines.lines.first?.contains("\n") == false, "one event, one line")
    }

    @Test func keysLoseWhatWouldBreakThem() {
        logger().debug("x", metadata: ["a key=\"odd\"": "1", "": "2"])
        #expect(lines.lines == [#"ts=2026-11-21T03:17:00Z level=debug msg="x" _=2 a_key__odd_=1"#])
    }

    @Test func reservedNamesAreKeptApart() {
        logger().error("real", metadata: ["msg": "fake", "level": "fake"])
        #expect(lines.lines == [#"ts=2026-11-21T03:17:00Z level=error msg="real" meta_level=fake meta_msg=fake"#])
    }

    @Test func handlerProviderAndCallMetadataMergeLaterWinning() {
        var logger = logger()
        logger[metadataKey: "run"] = "7"
        logger[metadataKey: "phase"] = "plan"
        logger.info("x", metadata: ["phase": "fetch", "ids": ["tt1", "tt2"]])
        #expect(
            lines.lines == [#"ts=2026-11-21T03:17:00Z level=info msg="x" ids="[\"tt1\", \"tt2\"]" phase=fetch run=7"#])
    }

    @Test func anAPIKeyInAURLIsRedactedWherever() {
        logger().warning(
            "GET http://127.0.0.1/?apikey=abcd1234&i=tt1", metadata: ["url": "https://x/?i=tt1&APIKEY=abcd1234"])
        let line = lines.lines.joined()
        #expect(!line.contains("abcd1234"))
        #expect(line.contains("apikey=REDACTED&i=tt1") && line.contains("APIKEY=REDACTED"))
    }

    @Test func anErrorIsAField() {
        struct Broken: Error, CustomStringConvertible { var description: String { "disk full" } }
        var event = LogEvent(
            level: .error, message: "write failed", metadata: nil, source: nil, file: #fileID, function: #function,
            line: #line)
        event.error = Broken()
        LineLogHandler(label: "t", format: .logfmt, now: { Self.instant }, write: lines.write).log(event: event)
        #expect(lines.lines == [#"ts=2026-11-21T03:17:00Z level=error msg="write failed" error="disk full""#])
    }
}
