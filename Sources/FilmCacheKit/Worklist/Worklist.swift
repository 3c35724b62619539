import Foundation

/// The IDs named by one or more worklist files, as read: every entry in file order, duplicates kept.
///
/// Planning hands the entries to the cache database, which deduplicates them and counts how many
/// files name each ID; nothing here keeps a set or a dictionary per ID, so a long worklist costs
/// 8 bytes an entry and no more. `ids` and `demand` work the same answers out in memory.
public struct Worklist: Sendable, Equatable {
    /// Every ID named, in the order read, duplicates included.
    private var packed = PackedIDs()
    /// Where each file's entries start in `packed`, one index a file, in the order read.
    private var fileStarts: [Int] = []
    /// Lines, CSV records and JSON elements that named no ID, each reported with its file and line.
    public var warnings: [WorklistWarning] = []

    /// An empty worklist.
    public init() {}

    /// A worklist of one file naming `ids` in this order.
    public init(ids: [String]) {
        fileStarts = [0]
        packed.reserveCapacity(ids.count)
        for id in ids { packed.append(id) }
    }

    /// Lines, CSV records and JSON elements that named an ID, duplicates included.
    public var entryCount: Int { packed.count }

    /// Distinct IDs in the order they first appear across the files.
    public var ids: [String] {
        var seen: Set<String> = []
        var ids: [String] = []
        forEachEntry { id, _ in if seen.insert(id).inserted { ids.append(id) } }
        return ids
    }

    /// For each ID, how many of the files name it (the planner's demand signal).
    public var demand: [String: Int] {
        var demand: [String: Int] = [:]
        var lastFile: [String: Int] = [:]
        forEachEntry { id, file in
            // Entries of one file are contiguous, so an ID counted for this file was counted last.
            if lastFile[id] != file { demand[id, default: 0] += 1 }
            lastFile[id] = file
        }
        return demand
    }

    /// Calls `body` with every entry and the index of the file naming it, in the order read.
    public func forEachEntry<E: Error>(_ body: (String, Int) throws(E) -> Void) throws(E) {
        for (file, start) in fileStarts.enumerated() {
            let end = file + 1 < fileStarts.count ? fileStarts[file + 1] : packed.count
            for index in start..<end { try body(packed[index], file) }
        }
    }

    /// Adds one file's IDs and warnings after those read so far.
    mutating func append(_ parsed: ParsedWorklist) {
        fileStarts.append(packed.count)
        packed.append(contentsOf: parsed.packedIDs)
        warnings += parsed.warnings
    }

    /// Reads and merges the files at `paths`, each parsed as `format` (by default, detected from its content).
    public static func read(paths: [String], format: WorklistFormat = .auto) throws(WorklistError) -> Worklist {
        var merged = Worklist()
        for path in paths {
            // The file's bytes are let go as soon as it is parsed.
            let parsed = try format.parse(try contents(of: path), file: path)
            guard parsed.packedIDs.count > 0 else { throw .noIDs(path: path, warnings: parsed.warnings.count) }
            merged.append(parsed)
        }
        return merged
    }

    /// The bytes of a regular file, or of a pipe read to its end (`warm <(query-ids)`, a FIFO);
    /// a directory or a device (which could be endless, like /dev/zero) is refused by what it is.
    static func contents(of path: String) throws(WorklistError) -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        let kind = info.st_mode & S_IFMT
        do {
            switch kind {
            case S_IFREG:
                return try Data(contentsOf: URL(fileURLWithPath: path))
            case S_IFIFO:
                guard let handle = FileHandle(forReadingAtPath: path) else {
                    throw WorklistError.unreadable(path: path, reason: String(cString: strerror(errno)))
                }
                defer { try? handle.close() }
                return try handle.readToEnd() ?? Data()
            default:
                let what =
                    kind == S_IFDIR ? "a directory" : kind == S_IFCHR || kind == S_IFBLK ? "a device" : "a socket"
                throw WorklistError.unreadable(path: path, reason: "it is \(what), not a file or a pipe")
            }
        } catch let error as WorklistError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: FileReadFailure.reason(error))
        }
    }
}

/// One ID and where it was found.
public struct WorklistEntry: Sendable, Equatable {
    /// The IMDb title ID, `tt` and 7 to 10 digits.
    public var imdbID: String
    /// The worklist file, as it was named.
    public var file: String
    /// The 1-based line it stands on (for a CSV record or JSON element, the line it starts on).
    public var line: Int
}

/// A line, CSV record or JSON element that named no ID; it was skipped.
public struct WorklistWarning: Sendable, Equatable, CustomStringConvertible {
    /// The worklist file, as it was named.
    public var file: String
    /// The 1-based line the skipped text starts on.
    public var line: Int
    /// What was skipped: the line, the CSV ID field, or the JSON element's source text.
    public var text: String
    /// Why it was skipped, as the message shows it.
    public var reason = "not an IMDb ID or title URL"

    /// `file:line: reason, skipped: "text"`, the text cut at 80 characters.
    ///
    /// The text is quoted as Swift would, control characters escaped, except that an apostrophe is
    /// shown as it stands in the file: `tt1'; DROP TABLE films` must not read as `tt1\'; DROP …`.
    public var description: String {
        let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
        // Every apostrophe comes out escaped and no other escape ends in one, so each `\'` is one apostrophe.
        let quoted = shown.debugDescription.replacingOccurrences(of: "\\'", with: "'")
        return "\(file):\(line): \(reason), skipped: \(quoted)"
    }
}

/// A worklist that cannot be used at all.
public enum WorklistError: Error, Equatable, CustomStringConvertible {
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The file was read but named no usable ID; `warnings` lines, records or elements were skipped.
    case noIDs(path: String, warnings: Int)
    /// No worklist file was given.
    case empty
    /// A CSV worklist whose header has no ID column (`Const`, `imdbID`, `imdb_id` or `tconst`).
    case noIDColumn(path: String, header: String)
    /// The file is not well-formed in its format (bad JSON, an unterminated CSV quote); `line` when known.
    case malformed(path: String, line: Int?, reason: String)

    /// A message that names the file and says what to fix.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read worklist \(path): \(reason)"
        case .noIDs(let path, let warnings):
            "worklist \(path) names no IMDb ID"
                + (warnings > 0 ? " (\(warnings) \(warnings == 1 ? "entry" : "entries") could not be read)" : "")
        case .empty: "no worklist given: name one or more files"
        case .noIDColumn(let path, let header):
            "CSV worklist \(path) has no Const, imdbID, imdb_id or tconst column; its header is \(header.debugDescription)"
        case .malformed(let path, let line?, let reason): "worklist \(path):\(line): \(reason)"
        case .malformed(let path, nil, let reason): "worklist \(path): \(reason)"
        }
    }
}
