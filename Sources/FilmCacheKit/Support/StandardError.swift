import CFilmCacheSystem
import Foundation

/// Standard error as the command writes it: whole lines, and never a crash when it is closed.
public enum StandardError {
    /// Writes `line` (a line end added when missing) in one `write` call where it fits, so lines
    /// from threads do not interleave.
    ///
    /// A failed write (a closed pipe, a full disk) drops the line: the run goes on and commits.
    /// With SIGPIPE ignored, a reader that went away is an `EPIPE` here, not the end of the process.
    public static func write(_ line: String) {
        var bytes = Array(line.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        FileWrite.all(bytes, to: 2)
    }
}

/// Standard output as `print` writes it, through stdio's buffer.
public enum StandardOutput {
    /// Flushes what `print` wrote; `false` when some of it did not get out (a closed pipe, with
    /// SIGPIPE ignored; a full disk), now or in an earlier write.
    public static func flush() -> Bool {
        fc_flush_stdout() == 0
    }

    /// The command's exit status once what it printed is flushed: 74, said on standard error, when
    /// standard output did not all get out and the command had succeeded (a failure keeps its own
    /// status) and its output `matters` (not a courtesy beside its work, as `warm`'s is).
    public static func finish(status: Int32, matters: Bool = true) -> Int32 {
        guard !flush(), status == 0, matters else { return status }
        StandardError.write(
            "filmcache: standard output could not be written (closed, or a full disk); the output is cut short")
        return ExitStatus.ioError
    }
}
