import Foundation
import Testing

extension Reliability {
    /// Server text in log lines: a `Year` holding a terminal escape, CR LF and a forged logfmt
    /// line, a C1 control and a bidi override, logged by a warm in each format.
    @Suite struct LogEscapingTests {
        /// The test's directory and database.
        let scratch: ReliabilityScratch
        /// A key the stand-in accepts.
        let key = "test-key-e2e"
        /// The film whose `Year` is tampered with.
        let id = "tt0100044"

        /// A fresh directory.
        init() throws {
            scratch = try ReliabilityScratch("logescape")
        }

        /// A one-film corpus whose `Year` carries what a hostile server would put there.
        func tamperedCorpus() throws -> String {
            let corpus = scratch.dir + "/corpus"
            try FileManager.default.createDirectory(atPath: corpus, withIntermediateDirectories: true)
            let original = BuiltBinaries.packageRoot + "/Data/corpus/\(id).json"
            var film = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: original)))
                    as? [String: Any])
            film["Year"] =
                "\u{1B}[2J1999\r\nts=2026-01-01T00:00:00Z level=error msg=\"forged\"\u{9B}31m\u{202E}\u{7F}"
            let data = try JSONSerialization.data(withJSONObject: film)
            try data.write(to: URL(fileURLWithPath: corpus + "/\(id).json"))
            return corpus
        }

        @Test(arguments: ["human", "logfmt", "json"])
        func controlCharactersFromTheServerAreEscapedInEveryLogFormat(format: String) throws {
            let standIn = try StandInProcess(corpus: try tamperedCorpus())
            let list = try scratch.worklist("one.txt", [id])
            let out = try BuiltBinaries.run(
                "filmcache",
                [
                    "warm", "--db", scratch.db, "--base-url", standIn.baseURL, "--rate", "0", "--log-format", format,
                    list,
                ],
                environment: ["OMDB_API_KEY": key])
            #expect(out.status == 0, "\(out.stderr)")
            let lines = out.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            let warning = try #require(lines.first { $0.contains("field Year") }, "\(out.stderr)")
            #expect(warning.contains(#"\u001b[2J1999\r\nts=2026-01-01"#), "\(warning)")
            #expect(warning.contains(#"\u009b31m\u202e\u007f"#), "\(warning)")
            let forbidden: Set<UInt32> = Set(0..<0x20).subtracting([0x0A]).union(0x7F...0x9F).union([0x202E])
            #expect(!out.stderr.unicodeScalars.contains { forbidden.contains($0.value) }, "raw control characters")
            #expect(!lines.contains { $0.hasPrefix("ts=2026-01-01") }, "a forged line")
            for line in lines {
                switch format {
                case "json": #expect(line.hasPrefix("{\"ts\":"), "\(line)")
                case "logfmt": #expect(line.hasPrefix("ts="), "\(line)")
                default: #expect(line.first?.isNumber == true, "\(line)")
                }
            }
        }
    }
}
