import Foundation

/// What one worklist file yielded: its IDs (duplicates kept) and the lines or records it skipped.
public struct ParsedWorklist: Sendable, Equatable {
    /// The IDs in file order, each with the line it was found on.
    public var entries: [WorklistEntry]
    /// What named no ID, in file order.
    public var warnings: [WorklistWarning]

    /// A result with the given entries and warnings (both empty by default).
    public init(entries: [WorklistEntry] = [], warnings: [WorklistWarning] = []) {
        self.entries = entries
        self.warnings = warnings
    }

    /// Records `value` found at `line` as an entry when it is an IMDb title ID, else as a warning.
    ///
    /// `reason` says, for the warning, why the value was not taken.
    mutating func take(_ value: String, file: String, line: Int, reason: @autoclosure () -> String) {
        if PlainTextWorklist.isIMDbID(value) {
            entries.append(WorklistEntry(imdbID: value, file: file, line: line))
        } else {
            warnings.append(WorklistWarning(file: file, line: line, text: value, reason: reason()))
        }
    }
}
