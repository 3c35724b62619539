/// Why an export or an import stopped: a file that cannot be opened or read, standard output
/// that cannot be written, or the cache database.
public enum TransferError: Error, CustomStringConvertible {
    /// An input file could not be opened (absent, not permitted).
    case cannotOpen(path: String, reason: String)
    /// An input file could not be read to its end (a directory, an I/O error).
    case cannotRead(path: String, reason: String)
    /// Standard output could not be written (a full disk); a closed pipe is ``outputClosed``.
    case cannotWrite(reason: String)
    /// The reader of standard output went away.
    case outputClosed
    /// The cache database failed.
    case store(StoreError)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(LogText.escaped(path)): \(reason)"
        case .cannotRead(let path, let reason): "cannot read \(LogText.escaped(path)): \(reason)"
        case .cannotWrite(let reason): "cannot write to standard output: \(reason)"
        case .outputClosed: "standard output was closed"
        case .store(let error): error.description
        }
    }
}

/// One line of an import that was skipped, and why.
package struct BadLine: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file as it was named (`-` for standard input).
    public var file: String
    /// The 1-based line the line or CSV record starts on.
    public var line: Int
    /// Why it was skipped; text from the file in it is short and escaped.
    public var reason: String

    /// Creates a report.
    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `films.jsonl:12: no rawJSON; skipped`.
    public var description: String { "\(LogText.escaped(file)):\(line): \(reason); skipped" }
}
