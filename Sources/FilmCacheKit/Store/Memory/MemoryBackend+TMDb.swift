import Foundation

/// The TMDb tables in memory: `tmdb_find`, `tmdb_films` (with the changed mark), the feed's
/// progress and the calls by day.
struct MemoryTMDbTables {
    var mappings: [String: TMDbMapping] = [:]
    var films: [TMDbRef: TMDbFilm] = [:]
    var changed: Set<TMDbRef> = []
    var syncedThrough: Date?
    var calls: [String: [String: Int]] = [:]
}

extension MemoryBackend {
    package func writeTMDb(_ batch: TMDbBatch) async throws(StoreError) -> TMDbWriteCounts {
        var counts = TMDbWriteCounts()
        for mapping in batch.mappings {
            var mapping = mapping
            mapping.checkedAt = mapping.checkedAt.storedSecond
            if let held = tmdb.mappings[mapping.imdbID],
                !batch.replaces(stored: held.checkedAt, with: mapping.checkedAt)
            {
                counts.mappingsKept += 1
                continue
            }
            tmdb.mappings[mapping.imdbID] = mapping
            counts.mappings += 1
        }
        for film in batch.films {
            var film = film
            film.fetchedAt = film.fetchedAt.storedSecond
            if let held = tmdb.films[film.ref], !batch.replaces(stored: held.fetchedAt, with: film.fetchedAt) {
                counts.filmsKept += 1
                continue
            }
            tmdb.films[film.ref] = film
            tmdb.changed.remove(film.ref)
            counts.films += 1
        }
        return counts
    }

    package func tmdbStates(of imdbIDs: [String]) async throws(StoreError) -> [TMDbState] {
        var seen: Set<String> = []
        return imdbIDs.filter { seen.insert($0).inserted }.map { id in
            let mapping = tmdb.mappings[id]
            let ref = mapping?.ref
            return TMDbState(
                imdbID: id, mapping: mapping, fetchedAt: ref.flatMap { tmdb.films[$0]?.fetchedAt },
                changed: ref.map { tmdb.changed.contains($0) } ?? false)
        }
    }

    package func tmdbFilm(_ ref: TMDbRef) async throws(StoreError) -> TMDbFilm? { tmdb.films[ref] }

    package func tmdbMapping(_ imdbID: String) async throws(StoreError) -> TMDbMapping? { tmdb.mappings[imdbID] }

    package func markTMDbChanged(_ refs: [TMDbRef]) async throws(StoreError) -> Int {
        var marked = 0
        for ref in Set(refs) where tmdb.films[ref] != nil {
            if tmdb.changed.insert(ref).inserted { marked += 1 }
        }
        return marked
    }

    package func tmdbChangesSyncedThrough() async throws(StoreError) -> Date? { tmdb.syncedThrough }

    package func setTMDbChangesSynced(through instant: Date) async throws(StoreError) {
        tmdb.syncedThrough = instant.storedSecond
    }

    package func countTMDbCalls(_ calls: [String: Int], day: String) async throws(StoreError) {
        for (kind, count) in calls where count != 0 { tmdb.calls[day, default: [:]][kind, default: 0] += count }
    }

    package func tmdbCalls(since day: String) async throws(StoreError) -> [String: [String: Int]] {
        tmdb.calls.filter { $0.key >= day }
    }

    package func tmdbCensus(staleBefore: Date) async throws(StoreError) -> TMDbCensus {
        var census = TMDbCensus()
        for film in tmdb.films.values {
            if film.ref.mediaType == .movie { census.movies += 1 } else { census.series += 1 }
            if film.fetchedAt < staleBefore { census.stale += 1 }
        }
        census.changed = tmdb.changed.count
        for mapping in tmdb.mappings.values {
            if mapping.ref == nil { census.notOnTMDb += 1 } else { census.mapped += 1 }
        }
        return census
    }

    package func tmdbFilms(after ref: TMDbRef?, limit: Int) async throws(StoreError) -> [TMDbFilm] {
        let refs = tmdb.films.keys.filter { ref == nil || $0 > ref! }.sorted().prefix(max(0, limit))
        return refs.map { tmdb.films[$0]! }
    }

    package func tmdbMappings(after imdbID: String?, limit: Int) async throws(StoreError) -> [TMDbMapping] {
        let ids = tmdb.mappings.keys.filter { imdbID == nil || Self.precedes(imdbID!, $0) }
            .sorted(by: Self.precedes).prefix(max(0, limit))
        return ids.map { tmdb.mappings[$0]! }
    }
}
