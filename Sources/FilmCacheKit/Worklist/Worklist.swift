import Foundation

/// The IDs named by one or more worklist files, deduplicated, first occurrence first.
public struct Worklist: Sendable, Equatable {
    /// Distinct IDs in the order they first appear across the files.
    public var ids: [String]
    /// For each ID, how many of the files name it (the planner's demand signal).
    public var demand: [String: Int]
    /// Lines that named no ID, each reported with its file and line.
    public var warnings: [WorklistWarning]
    /// Lines that named an ID, duplicates included.
    public var entryCount: Int

    public init(ids: [String] = [], demand: [String: Int] = [:], warnings: [WorklistWarning] = [], entryCount: Int = 0)
    {
        self.ids = ids
        self.demand = demand
        self.warnings = warnings
        self.entryCount = entryCount
    }

    /// Reads and merges the files at `paths`.
    public static func read(paths: [String]) throws(WorklistError) -> Worklist {
        var merged = Worklist()
        var seen: Set<String> = []
        for path in paths {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw .unreadable(path: path, reason: (error as NSError).localizedFailureReason ?? "\(error)")
            }
            let parsed = PlainTextWorklist.parse(data, file: path)
            guard !parsed.entries.isEmpty else { throw .noIDs(path: path, warnings: parsed.warnings.count) }
            merged.warnings += parsed.warnings
            merged.entryCount += parsed.entries.count
            var inThisFile: Set<String> = []
            for entry in parsed.entries {
                if seen.insert(entry.imdbID).inserted { merged.ids.append(entry.imdbID) }
                if inThisFile.insert(entry.imdbID).inserted { merged.demand[entry.imdbID, default: 0] += 1 }
            }
        }
        return merged
    }
}

/// One ID and where it was found.
public struct WorklistEntry: Sendable, Equatable {
    public var imdbID: String
    public var file: String
    public var line: Int
}

/// A line that named no ID; it was skipped.
public struct WorklistWarning: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var text: String

    public var description: String {
        let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
        return "\(file):\(line): not an IMDb ID or title URL, skipped: \(shown.debugDescription)"
    }
}

/// A worklist that cannot be used at all.
public enum WorklistError: Error, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case noIDs(path: String, warnings: Int)
    case empty

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read worklist \(path): \(reason)"
        case .noIDs(let path, let warnings):
            "worklist \(path) names no IMDb ID" + (warnings > 0 ? " (\(warnings) lines could not be read)" : "")
        case .empty: "no worklist given: name one or more files"
        }
    }
}
