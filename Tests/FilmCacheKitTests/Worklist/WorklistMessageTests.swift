import Foundation
import Testing

@testable import FilmCacheKit

/// What a person reads when a worklist or job file cannot be used: the file, the line, and the text as written.
@Suite struct WorklistMessageTests {
    /// A directory to name where a file is expected.
    let dir = TemporaryDirectory()

    /// The skipped text is quoted with escapes for quotes, backslashes and control characters only.
    @Test(arguments: [
        ("tt1'; DROP TABLE films;--", #""tt1'; DROP TABLE films;--""#),
        (#"a \' b"#, #""a \\' b""#),
        (#"x"y\"#, #""x\"y\\""#),
        ("tab\there\u{1}", #""tab\there\u{01}""#),
    ])
    func aSkippedLineIsQuotedAsWrittenApostrophesIncluded(text: String, shown: String) {
        let warning = WorklistWarning(file: "w.txt", line: 3, text: text)
        #expect(warning.description == "w.txt:3: not an IMDb ID or title URL, skipped: \(shown)")
    }

    /// Foundation's "could not be completed" is replaced by the system's reason.
    @Test func aDirectoryNamedAsAWorklistSaysSo() {
        #expect(throws: WorklistError.unreadable(path: dir.path, reason: "Is a directory")) {
            try Worklist.read(paths: [dir.path])
        }
    }

    /// The same for a job file.
    @Test func aDirectoryNamedAsAJobFileSaysSo() {
        #expect {
            try JobFile.load(path: dir.path, environment: [:])
        } throws: { error in
            (error as? JobFileError)?.messages == ["job file \(dir.path): cannot read it: Is a directory"]
        }
    }
}
