import Foundation

/// Films, negative answers, aliases and title answers in memory.
extension MemoryBackend {
    package func write(_ batch: WriteBatch) async throws(StoreError) {
        guard !batch.isEmpty else { return }
        for film in batch.films { films[film.imdbID] = Self.stored(film) }
        for film in batch.films {
            // A film that now answers for itself is no longer an alias of another.
            lookups[film.imdbID] = nil
            aliases[film.imdbID] = nil
        }
        for alias in batch.aliases {
            aliases[alias.askedID] = FilmAlias(
                askedID: alias.askedID, imdbID: alias.imdbID, recordedAt: alias.recordedAt.storedSecond)
        }
        for alias in batch.aliases { lookups[alias.askedID] = nil }
        for answer in batch.titles {
            // A film found stays found, whatever spelling later got a "not found" under its key.
            if let held = titles[answer.key], held.imdbID != nil, answer.imdbID == nil { continue }
            titles[answer.key] = TitleAnswer(
                key: answer.key, askedTitle: answer.askedTitle, imdbID: answer.imdbID,
                answeredAt: answer.answeredAt.storedSecond, nextAttemptAt: answer.nextAttemptAt?.storedSecond)
        }
        for lookup in batch.lookups {
            let at = lookup.attemptedAt.storedSecond
            let held = lookups[lookup.imdbID]
            lookups[lookup.imdbID] = LookupRow(
                imdbID: lookup.imdbID, status: lookup.status, message: lookup.message, httpStatus: lookup.httpStatus,
                attempts: (held?.attempts ?? 0) + 1, firstSeenAt: held?.firstSeenAt ?? at, lastAttemptAt: at,
                nextAttemptAt: lookup.nextAttemptAt.storedSecond)
        }
    }

    package func film(_ imdbID: String) async throws(StoreError) -> IMDBFilm? { films[imdbID] }

    package func films(_ imdbIDs: [String]) async throws(StoreError) -> [IMDBFilm] {
        Set(imdbIDs).compactMap { films[$0] }
    }

    package func lookup(_ imdbID: String) async throws(StoreError) -> LookupEntry? {
        lookups[imdbID].map(Self.entry)
    }

    package func aliasTarget(of imdbID: String) async throws(StoreError) -> String? { aliases[imdbID]?.imdbID }

    package func filmCount() async throws(StoreError) -> Int { films.count }

    package func states(of ids: [String]) async throws(StoreError) -> [CachedState] {
        var seen: Set<String> = []
        return ids.filter { seen.insert($0).inserted }.map { state($0) }
    }

    /// What the cache knows of `id`: the film its alias names (or its own), and its negative answer.
    func state(_ id: String) -> CachedState {
        let film = films[aliases[id]?.imdbID ?? id]
        let lookup = lookups[id]
        return CachedState(
            imdbID: id, fetchedAt: film?.lastFetched, dataVersion: film?.dataVersion, lookupStatus: lookup?.status,
            nextAttemptAt: lookup?.nextAttemptAt, lookupAttempts: lookup?.attempts, age: film.map(Self.age))
    }

    /// The newer `fetched_at` wins; a cached film stamped more than ``FreshnessPolicy/clockSkew`` in the
    /// future counts as older than any, so no instant pins a film.
    package func importFilms(_ imported: [IMDBFilm], now: Date) async throws(StoreError) -> ImportCounts {
        var counts = ImportCounts()
        guard !imported.isEmpty else { return counts }
        let latest = now.addingTimeInterval(FreshnessPolicy.clockSkew).storedSecond
        for film in imported {
            let film = Self.stored(film)
            let cached = films[film.imdbID]?.lastFetched
            if let cached, cached >= film.lastFetched, cached <= latest {
                counts.kept += 1
                continue
            }
            films[film.imdbID] = film
            if cached == nil { counts.added += 1 } else { counts.updated += 1 }
            lookups[film.imdbID] = nil
            aliases[film.imdbID] = nil
        }
        return counts
    }

    package func films(after afterID: String, limit: Int, since: Date?) async throws(StoreError) -> [IMDBFilm] {
        let since = since?.storedSecond
        return films.values
            .filter { film in Self.precedes(afterID, film.imdbID) && since.map { film.lastFetched >= $0 } ?? true }
            .sorted { Self.precedes($0.imdbID, $1.imdbID) }
            .prefix(max(limit, 0)).map { $0 }
    }

    /// `film` as a database keeps it: fetched to the second.
    static func stored(_ film: IMDBFilm) -> IMDBFilm {
        var film = film
        film.lastFetched = film.lastFetched.storedSecond
        return film
    }

    /// The facts of `film` its freshness is judged by.
    static func age(_ film: IMDBFilm) -> TitleAge {
        TitleAge(
            type: film.type?.description, yearStart: film.yearStart, yearEnd: film.yearEnd,
            released: film.released?.description)
    }

    /// A `lookups` row as the seam returns it.
    static func entry(_ row: LookupRow) -> LookupEntry {
        LookupEntry.row(
            imdbID: row.imdbID, status: row.status, message: row.message, httpStatus: row.httpStatus,
            attempts: row.attempts, lastAttemptAt: row.lastAttemptAt, nextAttemptAt: row.nextAttemptAt)
    }
}
