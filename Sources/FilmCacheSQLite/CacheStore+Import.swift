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
            let select = try c.db.cached("SELECT fetched_at FROM films WHERE imdb_id = ?")
            let upsert = try c.db.cached(Self.upsertIfNewerSQL)
            let latest = Timestamp.format(now.addingTimeInterval(FreshnessPolicy.clockSkew))
            try c.db.transaction { () throws(StoreError) in
                var landed: [String] = []
                for film in films {
                    let fetchedAt = Timestamp.format(film.lastFetched)
                    let cached = try select.query([.text(film.imdbID)]) { $0.text(0) ?? "" }.first
                    // The same order SQLite applies in the upsert's WHERE: text in one fixed form.
                    if let cached, cached >= fetchedAt, cached <= latest {
                        counts.kept += 1
                        continue
                    }
                    try upsert.run(FilmRow.values(for: film) + [.text(latest)])
                    if cached == nil { counts.added += 1 } else { counts.updated += 1 }
                    landed.append(film.imdbID)
                }
                if !landed.isEmpty {
                    let ids = JSONText.array(landed)
                    try c.deleteLookups.run([.text(ids)])
                    try c.deleteAliases.run([.text(ids)])
                }
            }
        }
        return counts
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
