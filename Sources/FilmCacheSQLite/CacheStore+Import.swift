import FilmCacheKit
import FilmCacheSQL
import Foundation

extension CacheStore {
    /// Writes imported films in one transaction: the newer `fetched_at` wins.
    ///
    /// A film the cache lacks is added; one the cache holds with an earlier `fetched_at` is
    /// replaced; one it holds as new or newer is kept, so importing the same file twice changes
    /// nothing and an old backup never overwrites a fresher film. A cached film stamped more than
    /// ``FreshnessPolicy/clockSkew`` in the future counts as older than any: no instant pins a film.
    /// A film that lands clears its
    /// `lookups` row and any alias under its ID, as a fetched one does (`write(_:)`). Of two films
    /// with one ID in `films`, the later one wins only when it is newer.
    public func importFilms(_ films: [IMDBFilm], now: Date) throws(StoreError) -> ImportCounts {
        var counts = ImportCounts()
        guard !films.isEmpty else { return counts }
        try withConnection { c throws(StoreError) in
            let held = try c.db.cached(
                "SELECT count(*) FROM films WHERE imdb_id IN (SELECT value FROM json_each(?))")
            let upsert = try c.db.cached(Self.upsertIfNewerSQL)
            let latest = Timestamp.format(now.addingTimeInterval(FreshnessPolicy.clockSkew))
            try c.db.transaction { () throws(StoreError) in
                // No lookup per film: the upsert's own guard keeps a film the cache holds as new or newer (it
                // changes no row then), and how many of the batch's IDs the cache held tells added from updated.
                counts = ImportCounts()
                let distinct = Set(films.map(\.imdbID))
                let before = try held.query([.text(JSONText.array(Array(distinct)))]) { $0.int(0) ?? 0 }.first ?? 0
                var landed: [String] = []
                for film in films {
                    try upsert.run(FilmRow.values(for: film) + [.text(latest)])
                    if c.db.changes > 0 { landed.append(film.imdbID) } else { counts.kept += 1 }
                }
                // Each ID the cache lacked was added once (its first film to land); every other landing replaced
                // a film, the cache's or one earlier in the batch.
                counts.added = distinct.count - before
                counts.updated = landed.count - counts.added
                if !landed.isEmpty {
                    let landedIDs = JSONText.array(landed)
                    try c.deleteLookups.run([.text(landedIDs)])
                    try c.deleteAliases.run([.text(landedIDs)])
                }
            }
        }
        return counts
    }

    /// Readies an import: into a cache with no film, `films`' `fetched_at` index is dropped, to be
    /// built once by ``finishImport()``.
    ///
    /// Kept film by film, that index costs a write of a leaf page somewhere in it for nearly every
    /// film of a batch (an export comes in `imdb_id` order, its fetch times in none), and those
    /// pages went to the WAL and then to the file at every commit: a 1,000,000-film restore wrote
    /// 10 GB for a 1.4 GB file, and took twice as long as one that builds the index at its end (3 GB).
    /// Only an empty cache's index is set aside, in the transaction that finds it empty: the films
    /// it would hold are all in the import. Reads stay right while it is away (slower by fetch
    /// time). An import stopped before its end (a kill, a power loss) leaves it missing until a
    /// writer opens the cache (`rebuildSetAsideIndex`).
    public func beginImport() throws(StoreError) {
        try withConnection { c throws(StoreError) in
            try c.db.transaction { () throws(StoreError) in
                let held = try c.db.prepare("SELECT EXISTS (SELECT 1 FROM films)").query { $0.int(0) ?? 0 }.first ?? 0
                guard held == 0 else { return }
                try c.db.execute("DROP INDEX IF EXISTS films_fetched_at")
            }
        }
    }

    /// Builds `films`' `fetched_at` index if ``beginImport()`` (this import's, or another's) set it
    /// aside. `IF NOT EXISTS` finds an index that is there without taking the write lock.
    public func finishImport() throws(StoreError) {
        try withConnection { c throws(StoreError) in try c.db.execute(Schema.filmsFetchedAtIndex) }
    }

    /// An upsert that replaces a row only with a newer one, or one stamped after the instant bound
    /// last: the guard holds even if the row changed between the read and the write.
    private static let upsertIfNewerSQL: String = {
        let columns = FilmRow.columns
        let updates = columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return "INSERT INTO films (\(columns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: columns.count).joined(separator: ", ")
            + ") ON CONFLICT (imdb_id) DO UPDATE SET \(updates)"
            + " WHERE excluded.fetched_at > films.fetched_at OR films.fetched_at > ?"
    }()
}

extension CacheStore {
    /// Up to `limit` films after `afterID` in ID order, fetched at or after `since` when given.
    public func films(after afterID: String, limit: Int, since: Date?) throws(StoreError) -> [IMDBFilm] {
        try withConnection { c throws(StoreError) in
            try c.db.cached(
                "SELECT \(FilmRow.columns.joined(separator: ", ")) FROM films WHERE imdb_id > ?1"
                    + " AND (?2 IS NULL OR fetched_at >= ?2) ORDER BY imdb_id LIMIT ?3"
            ).query([.text(afterID), .optional(since.map(Timestamp.format)), .integer(limit)]) {
                FilmRow.film(from: $0)
            }
        }
    }
}
