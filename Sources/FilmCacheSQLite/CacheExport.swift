import CSQLite
import FilmCacheKit
import Foundation

/// Writes the cache's films to a file descriptor as JSON Lines or CSV, reading the database only.
///
/// The file is opened read-only and never created, changed or migrated. Films are read in pages
/// in `imdb_id` order (`WHERE imdb_id > last ORDER BY imdb_id LIMIT 1000`), each page a short
/// read of its own that ends before its bytes are written, so a slow reader of the output never
/// holds a read transaction open, and memory stays flat whatever the size of the cache. The
/// export is not one snapshot: a warm writing at the same time may land a film before or after
/// its page is read, and every film is written once.
public final class CacheExport {
    /// Where the database file lives.
    public let path: String
    private let db: SQLiteConnection

    /// Rows a page reads at most.
    static let pageRows = 1000
    /// Bytes a page fills before it is written out, however few rows that is.
    static let pageBytes = 256 << 10

    /// Opens the database at `path` read-only; a file that is not a filmcache cache, or one from a
    /// newer filmcache, is refused.
    public init(path: String) throws(StoreError) {
        self.path = path
        db = try SQLiteConnection.reader(path: path)
        sqlite3_busy_timeout(db.handle, 10_000)
        let version = try db.prepare("PRAGMA user_version").query { $0.int(0) ?? 0 }.first ?? 0
        guard version > 0 else { throw .open(database: path, message: "not a filmcache cache (no schema version)") }
        guard version <= Schema.currentVersion else {
            throw .newerSchema(database: path, found: version, supported: Schema.currentVersion)
        }
    }

    /// How many films an export `since` an instant (or of all, when `nil`) writes, as of now.
    public func count(since: Date?) throws(StoreError) -> Int {
        let statement = try db.prepare(
            "SELECT count(*) FROM films" + (since == nil ? "" : " WHERE fetched_at >= ?"))
        return try statement.query(since.map { [.text(Self.bound($0))] } ?? []) { $0.int(0) ?? 0 }.first ?? 0
    }

    /// Writes every film fetched at or after `since` (all when `nil`) to `descriptor` in `format`;
    /// returns how many. `progress` is called after each page with the count so far.
    public func write(
        _ format: ExportFormat, since: Date?, to descriptor: Int32, progress: (Int) -> Void = { _ in }
    ) throws(TransferError) -> Int {
        var output = OutputBuffer(descriptor: descriptor)
        if format == .csv { output.bytes += FilmCSV.header }
        let statement: SQLiteStatement
        do {
            statement = try db.prepare(
                "SELECT \(FilmRow.columns.joined(separator: ", ")) FROM films WHERE imdb_id > ?"
                    + (since == nil ? "" : " AND fetched_at >= ?") + " ORDER BY imdb_id LIMIT \(Self.pageRows)")
        } catch {
            throw .store(error)
        }
        var last = ""
        var written = 0
        while true {
            var rows = 0
            do {
                try statement.bind([.text(last)] + (since.map { [.text(Self.bound($0))] } ?? []))
                defer { statement.reset() }
                while output.bytes.count < Self.pageBytes, try statement.step() {
                    rows += 1
                    last = statement.text(0) ?? last
                    switch format {
                    case .jsonl: FilmRow.appendExportLine(statement, to: &output.bytes)
                    case .csv: FilmCSV.appendRecord(statement, to: &output.bytes)
                    }
                }
            } catch {
                throw .store(error)
            }
            // The page's read has ended: a slow reader of the output holds no transaction open.
            try output.flush()
            written += rows
            progress(written)
            if rows == 0 { return written }
        }
    }

    /// `since` as stored text, rounded up to the whole second, so that no film fetched before it is included.
    static func bound(_ since: Date) -> String {
        Timestamp.format(Date(timeIntervalSince1970: since.timeIntervalSince1970.rounded(.up)))
    }
}
