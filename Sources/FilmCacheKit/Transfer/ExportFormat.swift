/// The two forms of an export.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// JSON Lines: one canonical `IMDBFilm` a line, compact, with OMDb's body in `rawJSON`.
    case jsonl
    /// CSV of `films`' columns, header first.
    case csv
}
