import Foundation
import Logging

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
    /// Entries that name a film by title, in the order read.
    public private(set) var titles: [TitleEntry] = []
    /// The index of each title entry's file.
    private var titleFiles: [Int] = []
    /// What each file read held, in the order read.
    public private(set) var files: [WorklistFile] = []
    /// Files that gave nothing, among others that did: each a message naming the file.
    public private(set) var emptyFiles: [String] = []

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
    package func forEachEntry<E: Error>(_ body: (String, Int) throws(E) -> Void) throws(E) {
        for file in fileStarts.indices {
            for index in range(ofFile: file) { try body(packed[index], file) }
        }
    }

    /// Logs what reading the files found wrong: each file that gave nothing among others, each
    /// skipped entry; and names each file that is a Letterboxd export.
    public func log(to logger: Logger) {
        for file in files where file.kind == WorklistFile.letterboxd {
            logger.info("worklist \(file.name) is a Letterboxd export: \(file.titles) films named by title")
        }
        for message in emptyFiles { logger.warning("\(message)") }
        for warning in warnings { logger.warning("\(warning)") }
    }

    /// The range of `packed` that file `file` fills.
    private func range(ofFile file: Int) -> Range<Int> {
        fileStarts[file]..<(file + 1 < fileStarts.count ? fileStarts[file + 1] : packed.count)
    }

    /// Calls `body` with each file's index, its IDs in order (duplicates kept, unpacked one at a
    /// time as they are read, so no file's IDs are held as strings) and its title entries.
    package func forEachFile<E: Error>(
        _ body: (Int, LazyMapSequence<Range<Int>, String>, ArraySlice<TitleEntry>) throws(E) -> Void
    ) throws(E) {
        var titleStart = 0
        for file in fileStarts.indices {
            var titleEnd = titleStart
            while titleEnd < titles.count, titleFiles[titleEnd] == file { titleEnd += 1 }
            try body(file, range(ofFile: file).lazy.map { packed[$0] }, titles[titleStart..<titleEnd])
            titleStart = titleEnd
        }
    }

    /// Adds one file's IDs, titles and warnings after those read so far.
    mutating func append(_ parsed: ParsedWorklist) {
        let file = fileStarts.count
        fileStarts.append(packed.count)
        packed.append(contentsOf: parsed.packedIDs)
        titles += parsed.titles
        titleFiles += Array(repeating: file, count: parsed.titles.count)
        warnings += parsed.warnings
        files.append(
            WorklistFile(name: parsed.file, kind: parsed.kind, ids: parsed.packedIDs.count, titles: parsed.titles.count)
        )
    }

    /// Reads and merges the files at `paths`, each parsed as `format` (by default, detected from its content).
    ///
    /// A file that gives nothing is an error when it is the only one, or when none of the others
    /// gives anything either; among files that do, it is a warning in ``emptyFiles`` and the run goes on.
    public static func read(paths: [String], format: WorklistFormat = .auto) throws(WorklistError) -> Worklist {
        var merged = Worklist()
        var empty: [WorklistError] = []
        for path in paths {
            // The file's bytes are let go as soon as it is parsed.
            let parsed = try format.parse(try contents(of: path), file: path)
            guard !parsed.isEmpty else {
                empty.append(.noIDs(path: path, warnings: parsed.warnings.count))
                merged.warnings += parsed.warnings
                continue
            }
            merged.append(parsed)
        }
        if merged.files.isEmpty, let first = empty.first { throw first }
        merged.emptyFiles = empty.map { "\($0); the other worklists are used" }
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
            case S_IFREG, S_IFIFO:
                // Opened by path, not through a file URL: a URL's first path scans every protocol
                // conformance of the binary (a `Set<UInt8>` literal; 1 M instructions of a plain `plan`).
                // The descriptor is closed with the handle.
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    throw WorklistError.unreadable(path: path, reason: String(cString: strerror(errno)))
                }
                return try FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readToEnd() ?? Data()
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

/// What one worklist file held, for messages and the plan.
public struct WorklistFile: Sendable, Equatable {
    /// The file, as it was named.
    public var name: String
    /// What kind of list it is: ``letterboxd``, `CSV`, `JSON` or `text`.
    public var kind: String
    /// The kind of a Letterboxd export, as messages and `plan` name it.
    package static let letterboxd = "Letterboxd export"
    /// Entries that named an ID, duplicates included.
    public var ids: Int
    /// Entries that named a title, duplicates included.
    public var titles: Int
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
    /// Whether `text` is source text that quotes itself (a JSON element), shown as it stands
    /// rather than quoted again.
    public var verbatim = false

    public init(
        file: String, line: Int, text: String, reason: String = "not an IMDb ID or title URL", verbatim: Bool = false
    ) {
        self.file = file
        self.line = line
        self.text = text
        self.reason = reason
        self.verbatim = verbatim
    }

    /// `file:line: reason, skipped: "text"`, the text cut at 80 characters.
    ///
    /// The text is quoted as Swift would, control characters escaped, except that an apostrophe is
    /// shown as it stands in the file: `tt1'; DROP TABLE films` must not read as `tt1\'; DROP …`.
    public var description: String {
        if verbatim {
            // One line: runs of white space (a pretty-printed object's line breaks) become one space.
            let words = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            let shown = words.count > 80 ? String(words.prefix(80)) + "…" : words
            let escaped = shown.unicodeScalars.map { scalar in
                scalar.properties.generalCategory == .control
                    ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }.joined()
            return "\(file):\(line): \(reason), skipped: \(escaped)"
        }
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
    /// The file was read but named no usable ID or title; `warnings` lines, records or elements were skipped.
    case noIDs(path: String, warnings: Int)
    /// No worklist file was given.
    case empty
    /// A CSV worklist whose header has no ID column (`Const`, `imdbID`, `imdb_id` or `tconst`).
    case noIDColumn(path: String, header: String)
    /// The file is not well-formed in its format (bad JSON, an unterminated CSV quote); `line` and
    /// `column` when known.
    case malformed(path: String, line: Int?, column: Int? = nil, reason: String)

    /// A message that names the file and says what to fix.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read worklist \(path): \(reason)"
        case .noIDs(let path, let warnings):
            "worklist \(path) names no IMDb ID or title"
                + (warnings > 0 ? " (\(warnings) \(warnings == 1 ? "entry" : "entries") could not be read)" : "")
        case .empty: "no worklist given: name one or more files"
        case .noIDColumn(let path, let header):
            "CSV worklist \(path) has no Const, imdbID, imdb_id or tconst column and no Title or Name column;"
                + " its header is \(header.debugDescription)"
        case .malformed(let path, let line?, let column, let reason):
            "worklist \(path):\(line):\(column.map { "\($0):" } ?? "") \(reason)"
        case .malformed(let path, nil, _, let reason): "worklist \(path): \(reason)"
        }
    }
}
