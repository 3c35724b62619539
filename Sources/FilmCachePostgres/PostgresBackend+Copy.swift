import FilmCacheKit
import FilmCacheSQL
import Foundation
import PostgresNIO

/// Copying a cache (``CacheTransfer``): the same statements as `CacheStore+Copy.swift`, with the
/// values (in the SQLite store's forms) cast to this backend's column types.
extension PostgresBackend {
    public func rowCount(_ table: CacheTable) async throws(StoreError) -> Int {
        // A read-only open of a database from before the table reads it as empty.
        guard has(table.addedBy) else { return 0 }
        return try await withConnection { c, logger in
            try await c.rows(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table.rawValue)"), logger).first?
                .decode(Int.self) ?? 0
        }
    }

    public func transferPage(_ table: CacheTable, after cursor: TransferCursor, limit: Int) async throws(StoreError)
        -> TransferPage
    {
        if table == .films { return .films(try await films(after: cursor.filmID, limit: limit, since: nil)) }
        if !has(table.addedBy) { return TransferPage(table, rows: []) }
        let key = cursor.keyValues
        let sql = table.pageSQL(
            select: Self.reading,
            afterKey: key.map { Self.placeholders(Array(table.columns.prefix($0.count)), offset: 0) },
            limit: "$\((key?.count ?? 0) + 1)")
        let kinds = table.readKinds
        let binds = PostgresBindings(values: (key ?? []) + [.integer(limit)])
        let rows = try await withConnection { c, logger in
            try await c.rows(PostgresQuery(unsafeSQL: sql, binds: binds), logger).map { try Self.values(of: $0, kinds) }
        }
        return TransferPage(table, rows: rows)
    }

    /// A row's values, read (with ``reading(_:)``) as the kinds of its columns.
    static func values(of row: PostgresRow, _ kinds: [TransferColumnKind]) throws -> [SQLValue] {
        let cells = row.makeRandomAccess()
        return try kinds.indices.map { i -> SQLValue in
            switch kinds[i] {
            case .integer: try cells[i].decode(Int?.self).map { .integer($0) } ?? .null
            case .real: try cells[i].decode(Double?.self).map { .real($0) } ?? .null
            case .blob:
                try cells[i].decode(ByteBuffer?.self).map { .blob(Array($0.readableBytesView)) } ?? .null
            case .flag: try cells[i].decode(Int?.self).map { .integer($0) } ?? .null
            case .text, .instant, .day: try cells[i].decode(String?.self).map { .text($0) } ?? .null
            }
        }
    }

    public func merge(_ page: TransferPage, now: Date) async throws(StoreError) -> ImportCounts {
        switch page {
        case .films(let films): return try await importFilms(films, now: now)
        case .runs(let runs): return try await mergeRuns(runs)
        default: break
        }
        let table = page.table
        let width = table.columns.count
        let chunk = Self.rowsPerStatement(width)
        let rows = page.rowValues
        return try await transaction { c, logger in
            var counts = ImportCounts()
            for start in stride(from: 0, to: rows.count, by: chunk) {
                let part = rows[start..<min(start + chunk, rows.count)]
                let placeholders = part.indices.map { Self.placeholders(table.columns, offset: ($0 - start) * width) }
                guard let sql = table.mergeSQL(rows: placeholders, now: now) else { break }
                // A row back for each that landed (inserted, or the held row gave way); none: the held row won.
                let query = PostgresQuery(
                    unsafeSQL: sql + " RETURNING (xmax = 0)", binds: PostgresBindings(values: part.flatMap { $0 }))
                let landed = try await c.rows(query, logger)
                for row in landed {
                    if try row.decode(Bool.self) { counts.added += 1 } else { counts.updated += 1 }
                }
                counts.kept += part.count - landed.count
            }
            return counts
        }
    }

    /// Rows of `width` values one statement binds: PostgreSQL takes at most 65,535 parameters.
    static func rowsPerStatement(_ width: Int) -> Int { max(1, min(1_000, 60_000 / max(1, width))) }

    /// Merges runs by their start (``CacheTable/runs``), each keeping its id when it is free; the
    /// identity then goes on after the highest id, so the next warm's run gets a new one.
    private func mergeRuns(_ runs: [RunRow]) async throws(StoreError) -> ImportCounts {
        guard !runs.isEmpty else { return ImportCounts() }
        let columns = CacheTable.runs.columns
        let names = columns.map(\.name)
        let values = Self.placeholders(columns, offset: 0)
        let insert =
            "INSERT INTO runs (\(names.joined(separator: ", "))) OVERRIDING SYSTEM VALUE"
            + " VALUES (\(values.joined(separator: ", ")))"
        // The same values, the id left to the identity: $1 is bound and not read.
        let insertNewID =
            "INSERT INTO runs (\(names.dropFirst().joined(separator: ", ")))"
            + " SELECT \(values.dropFirst().joined(separator: ", ")) WHERE $1::bigint IS NOT NULL"
        let complete =
            "UPDATE runs SET "
            + zip(names, values).dropFirst(2).map { "\($0) = \($1)" }.joined(separator: ", ") + " WHERE id = $1"
        let rows = zip(runs, TransferPage.runs(runs).rowValues).map { ($0, $1) }
        return try await transaction { c, logger in
            var counts = ImportCounts()
            for (run, values) in rows {
                let record = run.record
                let held = try await c.rows(
                    """
                    SELECT id, finished_at IS NOT NULL FROM runs
                    WHERE started_at = \(record.startedAt.wholeSecond) AND key_fingerprint = \(record.keyFingerprint)
                    ORDER BY id LIMIT 1 OFFSET \(run.sameStartBefore)
                    """, logger
                ).first.map { try $0.decode((Int, Bool).self) }
                if let held {
                    let (id, finished) = held
                    guard !finished, record.finishedAt != nil else {
                        counts.kept += 1
                        continue
                    }
                    let binds = PostgresBindings(values: [.integer(id)] + values.dropFirst())
                    try await c.run(PostgresQuery(unsafeSQL: complete, binds: binds), logger)
                    counts.updated += 1
                } else {
                    let taken = try await !c.rows("SELECT 1 FROM runs WHERE id = \(record.id)", logger).isEmpty
                    let binds = PostgresBindings(values: values)
                    try await c.run(PostgresQuery(unsafeSQL: taken ? insertNewID : insert, binds: binds), logger)
                    counts.added += 1
                }
            }
            try await c.run(
                "SELECT setval(pg_get_serial_sequence('runs', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM runs), false)",
                logger)
            return counts
        }
    }

    /// The server's start time and the database's oid: the same whatever host name, address or
    /// role reaches it.
    public func databaseIdentity() async throws(StoreError) -> String {
        try await withConnection { c, logger in
            let rows = try await c.rows(
                """
                SELECT pg_postmaster_start_time()::text || ' ' || oid::text FROM pg_database
                WHERE datname = current_database()
                """, logger)
            return "postgresql:" + (try rows.first?.decode(String.self) ?? "")
        }
    }

    /// How a column is read: instants and days in the SQLite store's text forms.
    static func reading(_ column: (name: String, kind: TransferColumnKind)) -> String {
        switch column.kind {
        case .instant: "to_char(\(column.name) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
        case .day: "to_char(\(column.name), 'YYYY-MM-DD')"
        case .flag: "\(column.name)::integer"
        case .text, .integer, .real, .blob: column.name
        }
    }

    /// `$n::type` for values of these columns, numbered from `offset + 1`.
    static func placeholders(_ columns: [(name: String, kind: TransferColumnKind)], offset: Int)
        -> [String]
    {
        columns.enumerated().map { index, column in
            let placeholder = "$\(offset + index + 1)"
            return switch column.kind {
            case .text: placeholder + "::text"
            case .integer: placeholder + "::bigint"
            case .real: placeholder + "::double precision"
            case .instant: placeholder + "::timestamptz"
            case .day: placeholder + "::date"
            case .blob: placeholder + "::bytea"
            // 0 or 1, as SQLite keeps it.
            case .flag: "(\(placeholder)::bigint <> 0)"
            }
        }
    }
}

extension PostgresBindings {
    /// `values` bound in order, as the SQLite store would bind them.
    init(values: [SQLValue]) {
        self.init(capacity: values.count)
        for value in values {
            switch value {
            case .null: appendNull()
            case .integer(let number): append(number)
            case .real(let number): append(number)
            case .text(let text): append(text)
            case .blob(let bytes): append(ByteBuffer(bytes: bytes))
            }
        }
    }
}
