/// What one worklist file yielded: its IDs (duplicates kept) and the lines or records it skipped.
///
/// The IDs and their lines are kept packed in two flat arrays rather than as `WorklistEntry`
/// values: a worklist of 100,000 IDs then costs 1.2 MB instead of 4 MB, and `entries` builds
/// the values only for those who ask.
public struct ParsedWorklist: Sendable, Equatable {
    /// The file, as it was named.
    public var file: String
    /// The IDs in file order, duplicates kept.
    private(set) var packedIDs = PackedIDs()
    /// The 1-based line each ID was found on (for a CSV record or JSON element, the line it starts on).
    private var lines: [UInt32] = []
    /// What named no ID, in file order.
    public var warnings: [WorklistWarning] = []
    /// Entries that name a film by title instead of an ID, in file order.
    public var titles: [TitleEntry] = []
    /// What kind of list the file is, as messages name it: `Letterboxd export`, `CSV`, `JSON`, `text`.
    public var kind = "text"

    /// An empty result for `file`.
    public init(file: String) {
        self.file = file
    }

    /// The IDs in file order, duplicates kept.
    public var ids: [String] { (0..<packedIDs.count).map { packedIDs[$0] } }

    /// The IDs with their file and line.
    public var entries: [WorklistEntry] {
        lines.indices.map { WorklistEntry(imdbID: packedIDs[$0], file: file, line: Int(lines[$0])) }
    }

    /// Makes room for `count` IDs, so a long worklist is not copied while it grows.
    mutating func reserveCapacity(_ count: Int) {
        packedIDs.reserveCapacity(count)
        lines.reserveCapacity(count)
    }

    /// Records an ID found at `line`.
    mutating func append(_ imdbID: String, line: Int) {
        packedIDs.append(imdbID)
        record(line: line)
    }

    /// Records an ID found at `line`, packed by ``PackedIDs/pack(bytes:)``.
    mutating func append(packedID bits: UInt64, line: Int) {
        packedIDs.append(packed: bits)
        record(line: line)
    }

    /// Records the line of the ID just appended.
    private mutating func record(line: Int) {
        // A line past 4 billion would need a file of over 4 GB; it is shown as the largest number.
        lines.append(UInt32(clamping: line))
    }

    /// Whether the file gave nothing to fetch: no ID and no title.
    public var isEmpty: Bool { packedIDs.count == 0 && titles.isEmpty }

    /// Records a title found at `line`.
    mutating func append(_ query: TitleQuery, line: Int) {
        titles.append(TitleEntry(query: query, file: file, line: line))
    }

    /// Records `value` found at `line` as an entry when it names an IMDb title (an ID, `TT` too, or an
    /// IMDb title URL, as a text line would), else as a warning.
    ///
    /// `reason` says, for the warning, why the value was not taken.
    mutating func take(_ value: String, line: Int, reason: @autoclosure () -> String) {
        // The common value, a bare ID, is taken as it is; anything else is read as a text line would be.
        if PlainTextWorklist.isIMDbID(value) {
            append(value, line: line)
        } else if let id = PlainTextWorklist.imdbID(in: value.trimmingCharacters(in: .whitespaces)) {
            append(id, line: line)
        } else {
            warnings.append(WorklistWarning(file: file, line: line, text: value, reason: reason()))
        }
    }
}
