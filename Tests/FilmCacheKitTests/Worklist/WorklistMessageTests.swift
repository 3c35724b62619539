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

    /// A directory or a device is refused by what it is; /dev/zero would otherwise be read forever.
    @Test(arguments: [("dir", "a directory"), ("/dev/zero", "a device"), ("/dev/null", "a device")])
    func aWorklistThatIsNoFileOrPipeSaysWhatItIs(path: String, what: String) {
        let path = path == "dir" ? dir.path : path
        #expect(throws: WorklistError.unreadable(path: path, reason: "it is \(what), not a file or a pipe")) {
            try Worklist.read(paths: [path])
        }
    }

    /// A pipe (a FIFO, or the shell's `<(command)`) is read to its end.
    @Test func aWorklistFromAPipeIsReadToItsEnd() throws {
        let fifo = dir.file("ids.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: fifo)
            handle?.write(Data("tt0111161\ntt0068646\n".utf8))
            try? handle?.close()
        }
        writer.start()
        let worklist = try Worklist.read(paths: [fifo])
        #expect(worklist.ids == ["tt0111161", "tt0068646"])
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
