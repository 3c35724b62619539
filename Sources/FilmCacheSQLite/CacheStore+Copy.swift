import FilmCacheKit
import FilmCacheSQL
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Copying a cache (``CacheTransfer``): the SQLite side, by the statements both backends share
/// (`TransferTable.swift`).
extension CacheStore {
    /// The number of rows in `table`.
    public func rowCount(_ table: CacheTable) throws(StoreError) -> Int {
        try withConnection { c throws(StoreError) in
            try c.db.cached("SELECT count(*) FROM \(table.rawValue)").query { $0.int(0) ?? 0 }.first ?? 0
        }
    }

    /// Up to `limit` rows of `table` after `cursor`, in key order.
    public func transferPage(_ table: CacheTable, after cursor: TransferCursor, limit: Int) throws(StoreError)
        -> TransferPage
    {
        if table == .films { return .films(try films(after: cursor.filmID, limit: limit, since: nil)) }
        let key = cursor.keyValues
        let sql = table.pageSQL(
            select: { $0.name }, afterKey: key.map { $0.indices.map { "?\($0 + 1)" } },
            limit: "?\((key?.count ?? 0) + 1)")
        let kinds = table.readKinds
        let rows = try withConnection { c throws(StoreError) in
            try c.db.cached(sql).query((key ?? []) + [.integer(limit)]) { Self.values(of: $0, kinds) }
        }
        return TransferPage(table, rows: rows)
    }

    /// A row's values, read as the kinds of its columns.
    static func values(of row: SQLiteStatement, _ kinds: [TransferColumnKind]) -> [SQLValue] {
        kinds.indices.map { i -> SQLValue in
            switch kinds[i] {
            case .integer, .flag: .optional(row.int(Int32(i)))
            case .blob: row.bytes(Int32(i)).map { .blob($0) } ?? .null
            case .real: .optional(row.double(Int32(i)))
            case .text, .instant, .day: .optional(row.text(Int32(i)))
            }
        }
    }

    /// Merges another database's rows in one transaction, by the table's rule (``CacheTable``).
    public func merge(_ page: TransferPage, now: Date) throws(StoreError) -> ImportCounts {
        switch page {
        case .films(let films): return try importFilms(films, now: now)
        case .runs(let runs): return try mergeRuns(runs)
        default: break
        }
        let table = page.table
        guard let sql = table.mergeSQL(rows: [table.columns.indices.map { "?\($0 + 1)" }], now: now) else {
            return ImportCounts()
        }
        let keys = table.keyColumns
        let exists =
            "SELECT 1 FROM \(table.rawValue) WHERE "
            + keys.enumerated().map { "\($1) = ?\($0 + 1)" }.joined(separator: " AND ")
        var counts = ImportCounts()
        try withConnection { c throws(StoreError) in
            let upsert = try c.db.cached(sql)
            let held = try c.db.cached(exists)
            try c.db.transaction { () throws(StoreError) in
                for values in page.rowValues {
                    let wasHeld = try !held.query(Array(values.prefix(keys.count))) { _ in true }.isEmpty
                    try upsert.run(values)
                    if !wasHeld {
                        counts.added += 1
                    } else if c.db.changes > 0 {
                        counts.updated += 1
                    } else {
                        counts.kept += 1
                    }
                }
            }
        }
        return counts
    }

    /// Merges runs by their start (``CacheTable/runs``), each keeping its id when it is free.
    private func mergeRuns(_ runs: [RunRow]) throws(StoreError) -> ImportCounts {
        var counts = ImportCounts()
        guard !runs.isEmpty else { return counts }
        let columns = CacheTable.runs.columns.map(\.name)
        let counters = columns.enumerated().dropFirst(2).map { "\($1) = ?\($0 + 1)" }
        try withConnection { c throws(StoreError) in
            let match = try c.db.cached(
                "SELECT id, finished_at FROM runs WHERE started_at = ? AND key_fingerprint = ? ORDER BY id"
                    + " LIMIT 1 OFFSET ?")
            let idTaken = try c.db.cached("SELECT 1 FROM runs WHERE id = ?")
            let insert = try c.db.cached(
                "INSERT INTO runs (\(columns.joined(separator: ", "))) VALUES ("
                    + columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ") + ")")
            let complete = try c.db.cached("UPDATE runs SET \(counters.joined(separator: ", ")) WHERE id = ?1")
            try c.db.transaction { () throws(StoreError) in
                for (run, values) in zip(runs, TransferPage.runs(runs).rowValues) {
                    let held = try match.query([
                        .text(Timestamp.format(run.record.startedAt)), .text(run.record.keyFingerprint),
                        .integer(run.sameStartBefore),
                    ]) { (id: $0.int(0) ?? 0, finished: $0.text(1) != nil) }.first
                    if let held {
                        guard !held.finished, run.record.finishedAt != nil else {
                            counts.kept += 1
                            continue
                        }
                        try complete.run([.integer(held.id)] + values.dropFirst())
                        counts.updated += 1
                    } else {
                        let taken = try !idTaken.query([.integer(run.record.id)]) { _ in true }.isEmpty
                        // A taken id: the run is added under the next one (AUTOINCREMENT).
                        try insert.run(taken ? [.null] + values.dropFirst() : values)
                        counts.added += 1
                    }
                }
            }
        }
        return counts
    }

    /// The file's device and inode: the same for every path that reaches it.
    public func databaseIdentity() throws(StoreError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .open(database: path, message: String(cString: strerror(errno)))
        }
        return "sqlite:\(info.st_dev):\(info.st_ino)"
    }
}
