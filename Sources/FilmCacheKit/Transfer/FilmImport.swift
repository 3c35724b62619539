import Foundation
import Logging

/// Loads export files (JSON Lines or CSV) and OMDb bodies, one a line, into a cache; no OMDb call.
///
/// Each file is read as it streams, its form told by its content (a `{` first: JSON Lines, else
/// CSV), and its films written in transactions of `batchSize` with the newer `fetched_at` winning
/// (``FilmStore/importFilms(_:now:)``). A line that is not a film is a warning naming `file:line`
/// and why, and is skipped; nothing stored is lost on bad input. The first ``shownWarnings`` of a
/// file are logged, then one line counts the rest. A film fetched more than
/// ``FreshnessPolicy/clockSkew`` after `now` (a host with a wrong clock, a bad line) is skipped
/// too: it would stay fresh, and win every newer-wins merge, until then. Films are gathered before
/// their transaction opens, so a slow input never holds the write lock.
///
/// TMDb's lines (``TMDbLine``) go to the TMDb store in transactions of their own, the newer
/// `fetched_at` or `checked_at` winning; each entry's columns are read again from its body. Into a
/// cache that keeps no TMDb entries they are bad lines.
public struct FilmImport {
    private let store: any FilmStore
    private let tmdb: (any TMDbStore)?
    private let lines: FilmLine
    private let logger: Logger
    private let batchSize: Int
    /// The latest `fetched_at` taken: `now` and the skew another host's clock may have.
    private let latest: Date
    /// This host's time, as the command read it.
    private let now: Date

    /// Warnings for bad lines logged for one file; the rest are counted in one line.
    package static let shownWarnings = 20

    /// An import into `store` (and TMDb's lines into `tmdb`); OMDb bodies count as fetched `now`.
    public init(
        store: any FilmStore, tmdb: (any TMDbStore)? = nil, now: Date, logger: Logger, batchSize: Int = 500
    ) {
        self.store = store
        self.tmdb = tmdb
        self.lines = FilmLine(now: now)
        self.logger = logger
        self.batchSize = max(1, batchSize)
        self.latest = now.addingTimeInterval(FreshnessPolicy.clockSkew)
        self.now = now
    }

    /// Opens `path` for an import (`-`: standard input), so that every file named can be opened
    /// before any is read.
    public static func open(_ path: String) throws(TransferError) -> Input {
        Input(reader: try RecordReader.open(path))
    }

    /// An input file, open and not read yet.
    public struct Input {
        fileprivate let reader: RecordReader

        /// The file as it was named.
        public var name: String { reader.name }
    }

    /// Imports `input`; `progress` is called after each batch with the file's tally so far.
    ///
    /// A batch is written while the next one is read: one transaction at a time, in the order read,
    /// each committed before the next is handed over, so reading and the store's work overlap and a
    /// kill loses no committed batch. Every write has ended when this returns or throws.
    public func read(_ input: Input, progress: (ImportTally) -> Void = { _ in }) async throws(TransferError)
        -> ImportTally
    {
        let result = await withTaskGroup(
            of: Result<ImportCounts, StoreError>.self, returning: Result<ImportTally, TransferError>.self
        ) { group in
            do throws(TransferError) {
                return .success(try await read(input, writingIn: &group, progress: progress))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// ``read(_:progress:)`` with its batches written as tasks of `group`, one at a time.
    private func read(
        _ input: Input, writingIn group: inout TaskGroup<Result<ImportCounts, StoreError>>,
        progress: (ImportTally) -> Void
    ) async throws(TransferError) -> ImportTally {
        let reader = input.reader
        var tally = ImportTally()
        var batch: [IMDBFilm] = []
        batch.reserveCapacity(batchSize)
        /// Whether a batch handed to `group` has not been waited for.
        var writing = false
        /// Waits for the batch being written and counts it.
        func written() async throws(TransferError) {
            guard writing, let result = await group.next() else { return }
            writing = false
            do {
                tally.counts += try result.get()
            } catch {
                throw .store(error)
            }
            progress(tally)
        }
        /// Hands the batch read to `group`, once the one before it is committed.
        func commit() async throws(TransferError) {
            try await written()
            guard !batch.isEmpty else { return }
            let (films, store, now) = (batch, store, now)
            batch = []
            batch.reserveCapacity(batchSize)
            group.addTask {
                do throws(StoreError) {
                    return .success(try await store.importFilms(films, now: now))
                } catch {
                    return .failure(error)
                }
            }
            writing = true
        }
        var tmdbBatch = TMDbBatch(newerWins: true, now: now)
        func commitTMDb() async throws(TransferError) {
            guard let tmdb, !tmdbBatch.isEmpty else { return }
            // The films read before these entries are written first, as when nothing overlapped.
            try await written()
            do {
                tally.tmdb += try await TMDbImportCounts.write(tmdbBatch, to: tmdb, now: now)
            } catch {
                throw .store(error)
            }
            tmdbBatch.films.removeAll(keepingCapacity: true)
            tmdbBatch.mappings.removeAll(keepingCapacity: true)
            progress(tally)
        }
        func skip(_ line: Int, _ reason: String) {
            tally.bad += 1
            guard tally.bad <= Self.shownWarnings else { return }
            logger.warning("\(BadLine(file: reader.name, line: line, reason: reason))")
        }
        // Warnings about fields of films that were imported.
        var notes = 0
        defer {
            if notes > Self.shownWarnings {
                logger.warning(
                    "\(LogText.escaped(reader.name)): \(notes - Self.shownWarnings) more field warnings, not shown")
            }
            if tally.bad > Self.shownWarnings {
                logger.warning(
                    "\(LogText.escaped(reader.name)): \(tally.bad - Self.shownWarnings) more bad lines skipped, not shown"
                )
            }
        }
        /// The film, unless it was fetched in the future.
        func taken(_ film: IMDBFilm) throws(FilmLine.Fault) -> IMDBFilm {
            guard film.lastFetched <= latest else {
                throw FilmLine.Fault(
                    reason: "\(film.imdbID): fetched_at \(Timestamp.format(film.lastFetched)) lies in the future"
                        + " (this host's clock says \(Timestamp.format(latest.addingTimeInterval(-FreshnessPolicy.clockSkew))));"
                        + " it would stay fresh until then")
            }
            return film
        }
        /// The TMDb entry or mapping on a line, unless it is stamped in the future.
        func takeTMDb(_ line: [UInt8]) throws(FilmLine.Fault) {
            guard tmdb != nil else {
                throw FilmLine.Fault(reason: "a TMDb line, and this cache keeps no TMDb entries")
            }
            let entry = try TMDbLine.read(line)
            let (stamp, name): (Date, String) =
                switch entry {
                case .film(let film): (film.fetchedAt, "\(film.ref): fetched_at")
                case .mapping(let mapping): (mapping.checkedAt, "\(mapping.imdbID): checked_at")
                }
            guard stamp <= latest else {
                throw FilmLine.Fault(
                    reason: "\(name) \(Timestamp.format(stamp)) lies in the future (this host's clock says"
                        + " \(Timestamp.format(now))); it would win every merge until then")
            }
            switch entry {
            case .film(let film): tmdbBatch.films.append(film)
            case .mapping(let mapping): tmdbBatch.mappings.append(mapping)
            }
        }
        do {
            let first = try reader.firstSignificantByte()
            let mode: RecordReader.Mode = first == UInt8(ascii: "{") ? .lines : .csv
            var layout: FilmCSV.Layout?
            while let record = try reader.next(mode) {
                if !record.tooLong && record.bytes.allSatisfy(RecordReader.isWhiteSpace) { continue }
                if mode == .csv && layout == nil {
                    // The header: without the columns an import needs, nothing in the file can be read.
                    do {
                        layout = try FilmCSV.Layout(header: Self.fields(record))
                    } catch {
                        tally.read += 1
                        skip(record.line, error.reason + "; the file is not imported")
                        break
                    }
                    reader.resyncsAtIMDbIDs = layout?.startsWithIMDbID ?? false
                    if let unknown = layout?.unknown, !unknown.isEmpty {
                        let names = unknown.map { FilmLine.quoted($0) }.joined(separator: ", ")
                        logger.notice(
                            "\(LogText.escaped(reader.name)):\(record.line): columns not in films, ignored: \(names)")
                    }
                    continue
                }
                tally.read += 1
                guard !record.tooLong else {
                    skip(record.line, "longer than \(RecordReader.maximumLength >> 20) MiB")
                    continue
                }
                do throws(FilmLine.Fault) {
                    if let layout {
                        do throws(FilmLine.Fault) {
                            batch.append(try taken(FilmCSV.film(Self.fields(record), layout: layout)))
                        } catch {
                            // A record that does not read may have swallowed the ones after a broken
                            // field: those are read again, the broken part alone skipped.
                            let parts = reader.resyncsAtIMDbIDs ? RecordReader.split(record) : [record]
                            guard parts.count > 1 else { throw error }
                            skip(parts[0].line, error.reason)
                            for part in parts.dropFirst() {
                                tally.read += 1
                                do {
                                    batch.append(try taken(FilmCSV.film(Self.fields(part), layout: layout)))
                                } catch {
                                    skip(part.line, error.reason)
                                }
                            }
                        }
                    } else if TMDbLine.isTMDbLine(record.bytes) {
                        try takeTMDb(record.bytes)
                    } else {
                        let normalized = try lines.film(from: record.bytes)
                        for warning in normalized.warnings {
                            notes += 1
                            guard notes <= Self.shownWarnings else { continue }
                            logger.warning("\(LogText.escaped(reader.name)):\(record.line): \(warning)")
                        }
                        batch.append(try taken(normalized.film))
                    }
                } catch {
                    skip(record.line, error.reason)
                    continue
                }
                if batch.count >= batchSize { try await commit() }
                if tmdbBatch.films.count + tmdbBatch.mappings.count >= batchSize { try await commitTMDb() }
            }
        } catch {
            // What was read before a read error is good: it is kept.
            if case .cannotRead = error {
                try await commit()
                try await written()
                try await commitTMDb()
            }
            throw error
        }
        try await commit()
        try await written()
        try await commitTMDb()
        return tally
    }

    /// The fields of one CSV record (line breaks in quoted fields kept as written).
    private static func fields(_ record: RecordReader.Record) throws(FilmLine.Fault) -> [String] {
        var reader = CSVReader(record.bytes, keepsLineBreaks: true)
        do {
            return try reader.next()?.fields ?? []
        } catch {
            throw FilmLine.Fault(reason: "a quoted field is never closed")
        }
    }
}

/// What an import read and did.
public struct ImportTally: Sendable, Equatable {
    /// Lines of JSON and CSV records read, blank ones and the CSV header left out.
    public var read = 0
    /// Films added, updated and kept.
    public var counts = ImportCounts()
    /// Lines skipped, each reported with its `file:line`.
    public var bad = 0
    /// TMDb entries and mappings added, updated and kept.
    public var tmdb = TMDbImportCounts()

    /// Nothing read yet.
    public init() {}

    /// Lines that gave a film, whatever the cache did with it.
    public var films: Int { counts.added + counts.updated + counts.kept }

    /// Lines that gave a film, a TMDb entry or a TMDb mapping, whatever the cache did with them.
    public var imported: Int { films + tmdb.entries + tmdb.mappings }

    /// Adds `other`'s counts to these.
    public static func += (tally: inout ImportTally, other: ImportTally) {
        tally.read += other.read
        tally.counts += other.counts
        tally.bad += other.bad
        tally.tmdb += other.tmdb
    }
}
