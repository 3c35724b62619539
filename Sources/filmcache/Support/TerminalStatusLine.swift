import FilmCacheKit
import Foundation
import Synchronization

/// The live line at the bottom of a terminal's standard error, kept clear of log lines.
///
/// Drawing goes through one lock with the log lines written by ``StatusLineLogHandler``:
/// a log line clears the status line, is written, and the status line is drawn again below it.
final class TerminalStatusLine: Sendable {
    /// The line on standard error.
    static let standardError = TerminalStatusLine(descriptor: 2)

    /// Whether standard error is a terminal that understands redrawing a line.
    static let standardErrorIsTerminal: Bool = {
        isatty(2) == 1 && ProcessEnvironment.value("TERM") != "dumb"
    }()

    private let descriptor: Int32
    /// The text on screen, `nil` when nothing is drawn.
    private let shown = Mutex<String?>(nil)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Replaces the line with `text`.
    func show(_ text: String) {
        shown.withLock { shown in
            emit("\r\u{1B}[2K" + text)
            shown = text
        }
    }

    /// Removes the line, leaving the cursor at the start of an empty line.
    func clear() {
        shown.withLock { shown in
            if shown != nil { emit("\r\u{1B}[2K") }
            shown = nil
        }
    }

    /// Runs `body` (which writes whole lines to the same terminal) with the line cleared, then redraws it.
    func withLineCleared(_ body: () -> Void) {
        shown.withLock { shown in
            if shown != nil { emit("\r\u{1B}[2K") }
            body()
            if let shown { emit(shown) }
        }
    }

    private func emit(_ text: String) {
        FileWrite.all(Array(text.utf8), to: descriptor)
    }
}
