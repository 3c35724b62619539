import FilmCacheKit
import FilmCacheSQL
import Foundation

/// The TMDb tables (``TMDbStore``): `/find`'s mapping, the entries, the changes feed's progress and
/// the calls by day, with the in-memory backend's semantics. A read-only open of a file from before
/// them reads them as empty (`Schema.readOnlyStandIns(from:)`).
extension CacheStore {
    /// IDs read by one statement of ``tmdbStates(of:)``: a JSON array of this many IDs stays well
    /// under a megabyte.
    static let tmdbStatesChunk = 20_000

    /// Commits mappings and entries in one transaction, each an upsert whose `WHERE` keeps a newer
    /// held row when the batch asks (`TMDbSQL.upsert`); an entry written clears its changed mark.
    public func writeTMDb(_ batch: TMDbBatch) throws(StoreError) -> TMDbWriteCounts {
        var counts = TMDbWriteCounts()
        guard !batch.isEmpty else { return counts }
        try withConnection { c throws(StoreError) in
            // An import's statements name its instant: compiled for the batch, not kept.
            func statement(_ table: CacheTable) throws(StoreError) -> SQLiteStatement {
                let sql = TMDbSQL.upsert(table, rows: [table.columns.indices.map { "?\($0 + 1)" }], batch: batch)
                return batch.now == nil ? try c.db.cached(sql) : try c.db.prepare(sql)
            }
            let mapping = try statement(.tmdbFind)
            let film = try statement(.tmdbFilms)
            try c.db.transaction { () throws(StoreError) in
                for values in TMDbSQL.values(batch.mappings) {
                    try mapping.run(values)
                    if c.db.changes > 0 { counts.mappings += 1 } else { counts.mappingsKept += 1 }
                }
                for values in TMDbSQL.values(batch.films) {
                    try film.run(values)
                    if c.db.changes > 0 { counts.films += 1 } else { counts.filmsKept += 1 }
                }
            }
        }
        return counts
    }

    /// What the cache knows of each distinct ID of `imdbIDs`, in the order given: one read
    /// transaction, one statement per ``tmdbStatesChunk`` IDs, each joining the IDs (a JSON array)
    /// to `tmdb_find` and `tmdb_films` by their keys.
    public func tmdbStates(of imdbIDs: [String]) throws(StoreError) -> [TMDbState] {
        var seen: Set<String> = []
        let ids = imdbIDs.filter { seen.insert($0).inserted }
        guard !ids.isEmpty else { return [] }
        return try withConnection { c throws(StoreError) in
            let select = try c.db.cached(
                """
                SELECT j.key, m.imdb_id IS NOT NULL, m.media_type, m.tmdb_id, m.checked_at, f.fetched_at, f.changed
                FROM json_each(?) AS j
                LEFT JOIN tmdb_find AS m ON m.imdb_id = j.value
                LEFT JOIN tmdb_films AS f ON f.media_type = m.media_type AND f.tmdb_id = m.tmdb_id
                """)
            return try c.db.transaction(deferred: true) { () throws(StoreError) -> [TMDbState] in
                var states = ids.map { TMDbState(imdbID: $0, mapping: nil) }
                for start in stride(from: 0, to: ids.count, by: Self.tmdbStatesChunk) {
                    let chunk = Array(ids[start..<min(start + Self.tmdbStatesChunk, ids.count)])
                    try select.forEach([.text(JSONText.array(chunk))]) { row throws(StoreError) in
                        let index = start + (row.int(0) ?? 0)
                        guard index < states.count, row.int(1) == 1 else { return }
                        let ref = row.text(2).flatMap(TMDbMediaType.init(rawValue:)).flatMap { type in
                            row.int(3).map { TMDbRef(type, $0) }
                        }
                        states[index].mapping = TMDbMapping(
                            imdbID: states[index].imdbID, ref: ref,
                            checkedAt: row.text(4).flatMap(Timestamp.parse) ?? .distantPast)
                        states[index].fetchedAt = row.text(5).flatMap(Timestamp.parse)
                        states[index].changed = row.int(6) == 1
                    }
                }
                return states
            }
        }
    }

    /// The stored entry, or `nil`.
    public func tmdbFilm(_ ref: TMDbRef) throws(StoreError) -> TMDbFilm? {
        try withConnection { c throws(StoreError) in
            let rows = try c.db.cached(Self.selectTMDbFilms + " WHERE media_type = ? AND tmdb_id = ?").query([
                .text(ref.mediaType.rawValue), .integer(ref.id),
            ]) { Self.values(of: $0, Self.tmdbFilmKinds) }
            return TMDbSQL.films(rows).first
        }
    }

    /// The mapping of one IMDb ID, or `nil` when `/find` was never asked.
    public func tmdbMapping(_ imdbID: String) throws(StoreError) -> TMDbMapping? {
        try withConnection { c throws(StoreError) in
            let rows = try c.db.cached(Self.selectTMDbFind + " WHERE imdb_id = ?").query([.text(imdbID)]) {
                Self.values(of: $0, CacheTable.tmdbFind.columns.map(\.kind))
            }
            return TMDbSQL.mappings(rows).first
        }
    }

    /// Marks those of `refs` the cache holds as changed upstream, in one transaction; how many were
    /// not marked before.
    public func markTMDbChanged(_ refs: [TMDbRef]) throws(StoreError) -> Int {
        let refs = Set(refs)
        guard !refs.isEmpty else { return 0 }
        return try withConnection { c throws(StoreError) in
            let mark = try c.db.cached(
                "UPDATE tmdb_films SET changed = 1 WHERE media_type = ? AND tmdb_id = ? AND changed = 0")
            return try c.db.transaction { () throws(StoreError) -> Int in
                var marked = 0
                for ref in refs {
                    try mark.run([.text(ref.mediaType.rawValue), .integer(ref.id)])
                    marked += c.db.changes
                }
                return marked
            }
        }
    }

    /// The end of the latest window of the changes feed read to its last page, if any.
    public func tmdbChangesSyncedThrough() throws(StoreError) -> Date? {
        try withConnection { c throws(StoreError) in
            try c.db.cached("SELECT synced_through FROM tmdb_sync WHERE id = 1").query { $0.text(0) }.first?
                .flatMap(Timestamp.parse)
        }
    }

    /// Records that the changes feed was read through `instant`.
    public func setTMDbChangesSynced(through instant: Date) throws(StoreError) {
        try withConnection { c throws(StoreError) in
            try c.db.cached(
                "INSERT INTO tmdb_sync (id, synced_through) VALUES (1, ?)"
                    + " ON CONFLICT (id) DO UPDATE SET synced_through = excluded.synced_through"
            ).run([.text(Timestamp.format(instant))])
        }
    }

    /// Adds `calls` to the day's counts by kind, in one transaction.
    public func countTMDbCalls(_ calls: [String: Int], day: String) throws(StoreError) {
        let calls = calls.filter { $0.value != 0 }
        guard !calls.isEmpty else { return }
        try withConnection { c throws(StoreError) in
            let add = try c.db.cached(
                "INSERT INTO tmdb_calls (day, kind, calls) VALUES (?, ?, ?)"
                    + " ON CONFLICT (day, kind) DO UPDATE SET calls = calls + excluded.calls")
            try c.db.transaction { () throws(StoreError) in
                for (kind, count) in calls { try add.run([.text(day), .text(kind), .integer(count)]) }
            }
        }
    }

    /// The calls counted on each day from `day` on, by day then kind.
    public func tmdbCalls(since day: String) throws(StoreError) -> [String: [String: Int]] {
        try withConnection { c throws(StoreError) in
            var calls: [String: [String: Int]] = [:]
            try c.db.cached("SELECT day, kind, calls FROM tmdb_calls WHERE day >= ?").forEach([.text(day)]) {
                row throws(StoreError) in
                calls[row.text(0) ?? "", default: [:]][row.text(1) ?? ""] = row.int(2) ?? 0
            }
            return calls
        }
    }

    /// Counts entries and mappings in one read; entries fetched before `staleBefore` are stale.
    public func tmdbCensus(staleBefore: Date) throws(StoreError) -> TMDbCensus {
        // Instants are kept to the second: one is before `staleBefore` exactly when it is before the
        // next whole second from it.
        let bound = Timestamp.format(Date(timeIntervalSince1970: staleBefore.timeIntervalSince1970.rounded(.up)))
        return try withConnection { c throws(StoreError) in
            try c.db.cached(
                """
                SELECT (SELECT count(*) FROM tmdb_films WHERE media_type = 'movie'),
                       (SELECT count(*) FROM tmdb_films WHERE media_type = 'tv'),
                       (SELECT count(*) FROM tmdb_films WHERE fetched_at < ?),
                       (SELECT count(*) FROM tmdb_films WHERE changed = 1),
                       (SELECT count(*) FROM tmdb_find WHERE tmdb_id IS NOT NULL),
                       (SELECT count(*) FROM tmdb_find WHERE tmdb_id IS NULL)
                """
            ).query([.text(bound)]) { row in
                TMDbCensus(
                    movies: row.int(0) ?? 0, series: row.int(1) ?? 0, stale: row.int(2) ?? 0, changed: row.int(3) ?? 0,
                    mapped: row.int(4) ?? 0, notOnTMDb: row.int(5) ?? 0)
            }.first ?? TMDbCensus()
        }
    }

    /// Up to `limit` entries after `ref` in (media type, ID) order.
    public func tmdbFilms(after ref: TMDbRef?, limit: Int) throws(StoreError) -> [TMDbFilm] {
        try withConnection { c throws(StoreError) in
            let rows = try c.db.cached(
                Self.selectTMDbFilms
                    + " WHERE ?1 IS NULL OR (media_type, tmdb_id) > (?1, ?2) ORDER BY media_type, tmdb_id LIMIT ?3"
            ).query([.optional(ref?.mediaType.rawValue), .integer(ref?.id ?? 0), .integer(max(0, limit))]) {
                Self.values(of: $0, Self.tmdbFilmKinds)
            }
            return TMDbSQL.films(rows)
        }
    }

    /// Up to `limit` mappings after `imdbID` in ID order (byte order).
    public func tmdbMappings(after imdbID: String?, limit: Int) throws(StoreError) -> [TMDbMapping] {
        try withConnection { c throws(StoreError) in
            let rows = try c.db.cached(
                Self.selectTMDbFind + " WHERE ?1 IS NULL OR imdb_id > ?1 ORDER BY imdb_id LIMIT ?2"
            ).query([.optional(imdbID), .integer(max(0, limit))]) {
                Self.values(of: $0, CacheTable.tmdbFind.columns.map(\.kind))
            }
            return TMDbSQL.mappings(rows)
        }
    }

    /// Every column of `tmdb_films` (a copy's row), from the table.
    private static let selectTMDbFilms =
        "SELECT " + CacheTable.tmdbFilms.columns.map(\.name).joined(separator: ", ") + " FROM tmdb_films"
    private static let tmdbFilmKinds = CacheTable.tmdbFilms.columns.map(\.kind)
    /// Every column of `tmdb_find`, from the table.
    private static let selectTMDbFind =
        "SELECT " + CacheTable.tmdbFind.columns.map(\.name).joined(separator: ", ") + " FROM tmdb_find"
}
