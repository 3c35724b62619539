/// What one worklist file yielded: its IDs (duplicates kept) and the lines or records it skipped.
///
/// The IDs and their lines are kept in two flat arrays rather than as `WorklistEntry` values:
/// a worklist of 100,000 IDs then costs 2.4 MB instead of 4 MB, and `entries` builds the
/// values only for those who ask.
public struct ParsedWorklist: Sendable, Equatable {
    /// The file, as it was named.
    public var file: String
    /// The IDs in file order, duplicates kept.
    public private(set) var ids: [String] = []
    /// The 1-based line each of `ids` was found on (for a CSV record or JSON element, the line it starts on).
    public private(set) var lines: [Int] = []
    /// What named no ID, in file order.
    public var warnings: [WorklistWarning] = []

    /// An empty result for `file`.
    public init(file: String) {
        self.file = file
    }

    /// The IDs with their file and line.
    public var entries: [WorklistEntry] {
        zip(ids, lines).map { WorklistEntry(imdbID: $0, file: file, line: $1) }
    }

    /// Makes room for `count` IDs, so a long worklist is not copied while it grows.
    mutating func reserveCapacity(_ count: Int) {
        ids.reserveCapacity(count)
        lines.reserveCapacity(count)
    }

    /// Records an ID found at `line`.
    mutating func append(_ imdbID: String, line: Int) {
        ids.append(imdbID)
        lines.append(line)
    }

    /// Records `value` found at `line` as an entry when it is an IMDb title ID, else as a warning.
    ///
    /// `reason` says, for the warning, why the value was not taken.
    mutating func take(_ value: String, line: Int, reason: @autoclosure () -> String) {
        if PlainTextWorklist.isIMDbID(value) {
            append(value, line: line)
        } else {
            warnings.append(WorklistWarning(file: file, line: line, text: value, reason: reason()))
        }
    }
}
