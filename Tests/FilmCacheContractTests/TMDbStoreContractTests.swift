import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// The contract of a backend, TMDb's side: `/find`'s mapping, TMDb's entries with their bodies byte
/// for byte, newer-wins, the changes feed's mark and progress, the calls by day, and copying it all,
/// through the protocol only, the memory backend being the reference.
@Suite(.timeLimit(.minutes(3))) struct TMDbStoreContractTests {
    let now = utc(2026, 11, 21, 12)

    /// A body as TMDb sends it, with non-ASCII text (composed and decomposed, CJK, emoji, the EN
    /// DASH) and bytes that are no UTF-8, but no NUL.
    static let body: [UInt8] =
        Array(
            #"{"id":550,"title":"Fight Club","original_title":"Fight Club","overview":"Ame\u0301lie – 千と千尋 🎬","#
                .utf8) + [0xFF, 0xFE, 0x80, 0xC3, 0x28, 0x7F, 0x01] + Array("\"tagline\":\"Amélie\u{301}\"}".utf8)

    /// An entry with every column set.
    func fullFilm(fetchedAt: Date) -> TMDbFilm {
        TMDbFilm(
            ref: TMDbRef(.movie, 550), imdbID: "tt0137523", title: "Fight Club", originalTitle: "Fight Club — 原題",
            overview: "A ticking-time-bomb insomniac…\nline two", releaseDate: "1999-10-15", runtime: 139,
            genres: ["Drama", "Thriller", "Comédie"], voteAverage: 8.438, voteCount: 30_012, popularity: 61.416_123,
            posterPath: "/pB8BM7pdSp6B6Ih7QZ4DrQ3PmJK.jpg", backdropPath: "/hZkgoQYus5vegHoetLkCJzb17zJ.jpg",
            collection: "Fight Club Collection", status: "Released", body: Self.body, fetchedAt: fetchedAt)
    }

    /// A series with nothing but what every entry has.
    func bareSeries(_ id: Int, imdbID: String?, fetchedAt: Date) -> TMDbFilm {
        TMDbFilm(
            ref: TMDbRef(.tv, id), imdbID: imdbID, title: "Series \(id)", body: [0x7B, 0x7D], fetchedAt: fetchedAt)
    }

    @Test(arguments: BackendKind.allCases)
    func mappingsPositiveAndNegativeReadBackToTheSecond(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let checked = now + 0.75
            let counts = try await db.writeTMDb(
                TMDbBatch(mappings: [
                    TMDbMapping(imdbID: "tt0137523", ref: TMDbRef(.movie, 550), checkedAt: checked),
                    TMDbMapping(imdbID: "tt0944947", ref: TMDbRef(.tv, 1399), checkedAt: checked),
                    TMDbMapping(imdbID: "tt9999999", ref: nil, checkedAt: checked),
                ]))
            #expect(counts == TMDbWriteCounts(mappings: 3))
            #expect(
                try await db.tmdbMapping("tt0137523")
                    == TMDbMapping(imdbID: "tt0137523", ref: TMDbRef(.movie, 550), checkedAt: now))
            #expect(try await db.tmdbMapping("tt0944947")?.ref == TMDbRef(.tv, 1399))
            #expect(try await db.tmdbMapping("tt9999999") == TMDbMapping(imdbID: "tt9999999", ref: nil, checkedAt: now))
            #expect(try await db.tmdbMapping("tt0000001") == nil)
            // A later fetch replaces the answer, a negative one too.
            _ = try await db.writeTMDb(
                TMDbBatch(mappings: [TMDbMapping(imdbID: "tt9999999", ref: TMDbRef(.movie, 7), checkedAt: now + 60)]))
            #expect(try await db.tmdbMapping("tt9999999")?.ref == TMDbRef(.movie, 7))
        }
    }

    @Test(arguments: BackendKind.allCases)
    func anEntryRoundTripsEveryColumnAndItsBodyByteForByte(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let full = fullFilm(fetchedAt: now + 0.999)
            let bare = bareSeries(1399, imdbID: nil, fetchedAt: now - 60)
            let empty = TMDbFilm(ref: TMDbRef(.movie, 1), imdbID: "tt0000001", title: "", body: [], fetchedAt: now)
            let counts = try await db.writeTMDb(TMDbBatch(films: [full, bare, empty]))
            #expect(counts == TMDbWriteCounts(films: 3))
            var expected = full
            expected.fetchedAt = now
            let read = try #require(try await db.tmdbFilm(full.ref))
            #expect(read == expected)
            #expect(read.body == Self.body)
            #expect(read.genreText == "Drama, Thriller, Comédie")
            #expect(try await db.tmdbFilm(bare.ref) == bare)
            #expect(try await db.tmdbFilm(empty.ref) == empty)
            #expect(try await db.tmdbFilm(TMDbRef(.tv, 550)) == nil, "the media type is part of the key")
        }
    }

    @Test(arguments: BackendKind.allCases)
    func newerWinsKeepsTheLaterStampAndNoFutureStampPinsARow(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            var film = fullFilm(fetchedAt: now)
            let mapping = TMDbMapping(imdbID: "tt0137523", ref: TMDbRef(.movie, 550), checkedAt: now)
            _ = try await db.writeTMDb(TMDbBatch(mappings: [mapping], films: [film]))
            // An import of older rows keeps the held ones; of newer ones takes them.
            var older = film
            older.fetchedAt = now - 3600
            older.title = "Older"
            var olderMapping = mapping
            olderMapping.checkedAt = now - 3600
            olderMapping.ref = nil
            var counts = try await db.writeTMDb(
                TMDbBatch(mappings: [olderMapping], films: [older], newerWins: true, now: now))
            #expect(counts == TMDbWriteCounts(filmsKept: 1, mappingsKept: 1))
            #expect(try await db.tmdbFilm(film.ref)?.title == "Fight Club")
            #expect(try await db.tmdbMapping("tt0137523")?.ref == TMDbRef(.movie, 550))
            // The same stamp is kept too.
            counts = try await db.writeTMDb(TMDbBatch(films: [film], newerWins: true, now: now))
            #expect(counts == TMDbWriteCounts(filmsKept: 1))
            var newer = film
            newer.fetchedAt = now + 60
            newer.title = "Newer"
            counts = try await db.writeTMDb(TMDbBatch(films: [newer], newerWins: true, now: now))
            #expect(counts == TMDbWriteCounts(films: 1))
            #expect(try await db.tmdbFilm(film.ref)?.title == "Newer")
            // A fetch replaces whatever is held, older or not.
            counts = try await db.writeTMDb(TMDbBatch(mappings: [olderMapping], films: [older]))
            #expect(counts == TMDbWriteCounts(films: 1, mappings: 1))
            #expect(try await db.tmdbFilm(film.ref) == older)
            #expect(try await db.tmdbMapping("tt0137523") == olderMapping)
            // A row stamped a year ahead gives way to any import once its stamp is past the skew.
            film.fetchedAt = now + 365 * 86_400
            var future = mapping
            future.checkedAt = now + 365 * 86_400
            _ = try await db.writeTMDb(TMDbBatch(mappings: [future], films: [film]))
            counts = try await db.writeTMDb(
                TMDbBatch(mappings: [olderMapping], films: [older], newerWins: true, now: now))
            #expect(counts == TMDbWriteCounts(films: 1, mappings: 1))
            #expect(try await db.tmdbFilm(film.ref)?.fetchedAt == now - 3600)
            // Within the skew it stands.
            film.fetchedAt = now + FreshnessPolicy.clockSkew - 1
            _ = try await db.writeTMDb(TMDbBatch(films: [film]))
            counts = try await db.writeTMDb(TMDbBatch(films: [older], newerWins: true, now: now))
            #expect(counts == TMDbWriteCounts(filmsKept: 1))
            // Of one ID twice in a batch, each is weighed in turn.
            var first = newer
            first.ref = TMDbRef(.movie, 551)
            first.fetchedAt = now + 120
            first.title = "First"
            var second = first
            second.fetchedAt = now + 60
            second.title = "Second"
            counts = try await db.writeTMDb(TMDbBatch(films: [first, second], newerWins: true, now: now))
            #expect(counts == TMDbWriteCounts(films: 1, filmsKept: 1))
            #expect(try await db.tmdbFilm(first.ref)?.title == "First")
            counts = try await db.writeTMDb(TMDbBatch(films: [first, second]))
            #expect(counts == TMDbWriteCounts(films: 2))
            #expect(try await db.tmdbFilm(first.ref)?.title == "Second")
        }
    }

    @Test(arguments: BackendKind.allCases)
    func theChangedMarkCountsStoredEntriesOnceAndAWriteClearsIt(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let film = fullFilm(fetchedAt: now - 86_400)
            let series = bareSeries(1399, imdbID: "tt0944947", fetchedAt: now - 86_400)
            _ = try await db.writeTMDb(
                TMDbBatch(
                    mappings: [
                        TMDbMapping(imdbID: "tt0137523", ref: film.ref, checkedAt: now),
                        TMDbMapping(imdbID: "tt0944947", ref: series.ref, checkedAt: now),
                    ], films: [film, series]))
            let marked = try await db.markTMDbChanged([film.ref, TMDbRef(.movie, 999_999), film.ref, TMDbRef(.tv, 550)])
            #expect(marked == 1)
            #expect(try await db.markTMDbChanged([film.ref]) == 0, "already marked")
            #expect(try await db.markTMDbChanged([]) == 0)
            var states = try await db.tmdbStates(of: ["tt0137523", "tt0944947"])
            #expect(states.map(\.changed) == [true, false])
            #expect(try await db.tmdbCensus(staleBefore: now).changed == 1)
            // The entry fetched again: the mark goes.
            var again = film
            again.fetchedAt = now
            _ = try await db.writeTMDb(TMDbBatch(films: [again]))
            states = try await db.tmdbStates(of: ["tt0137523"])
            #expect(states.first?.changed == false && states.first?.fetchedAt == now)
            #expect(try await db.tmdbCensus(staleBefore: now).changed == 0)
            // An import that keeps the held entry keeps its mark.
            #expect(try await db.markTMDbChanged([film.ref, series.ref]) == 2)
            _ = try await db.writeTMDb(TMDbBatch(films: [film], newerWins: true, now: now))
            #expect(try await db.tmdbStates(of: ["tt0137523"]).first?.changed == true)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func statesComeOncePerIDInTheOrderGivenAcrossManyIDs(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let film = fullFilm(fetchedAt: now - 60)
            _ = try await db.writeTMDb(
                TMDbBatch(
                    mappings: [
                        TMDbMapping(imdbID: "tt0137523", ref: film.ref, checkedAt: now - 30),
                        TMDbMapping(imdbID: "tt0000404", ref: nil, checkedAt: now - 20),
                        TMDbMapping(imdbID: "tt0944947", ref: TMDbRef(.tv, 1399), checkedAt: now - 10),
                    ], films: [film]))
            let states = try await db.tmdbStates(of: [
                "tt0944947", "tt0137523", "tt0944947", "tt0000001", "tt0000404", "tt0137523",
            ])
            #expect(states.map(\.imdbID) == ["tt0944947", "tt0137523", "tt0000001", "tt0000404"])
            #expect(
                states[0]
                    == TMDbState(
                        imdbID: "tt0944947",
                        mapping: TMDbMapping(imdbID: "tt0944947", ref: TMDbRef(.tv, 1399), checkedAt: now - 10)))
            #expect(
                states[1]
                    == TMDbState(
                        imdbID: "tt0137523",
                        mapping: TMDbMapping(imdbID: "tt0137523", ref: film.ref, checkedAt: now - 30),
                        fetchedAt: now - 60))
            #expect(states[2] == TMDbState(imdbID: "tt0000001", mapping: nil))
            #expect(
                states[3]
                    == TMDbState(
                        imdbID: "tt0000404", mapping: TMDbMapping(imdbID: "tt0000404", ref: nil, checkedAt: now - 20)))
            #expect(try await db.tmdbStates(of: []).isEmpty)
            // Many IDs, the known ones late in the list: read in more than one statement.
            var many = (1...45_000).map { String(format: "tt%08d", $0 + 1_000_000) }
            many.append(contentsOf: ["tt0137523", many[7], "tt0000404"])
            let read = try await db.tmdbStates(of: many)
            #expect(read.count == 45_002)
            #expect(read.prefix(45_000).allSatisfy { $0.mapping == nil } && read[7].imdbID == many[7])
            #expect(read[45_000].fetchedAt == now - 60 && read[45_001].mapping?.ref == nil)
            #expect(read[45_001].mapping != nil)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func theCensusCountsEntriesAndMappings(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            #expect(try await db.tmdbCensus(staleBefore: now) == TMDbCensus())
            let films = [
                fullFilm(fetchedAt: now - 10 * 86_400),
                bareSeries(1, imdbID: "tt0000001", fetchedAt: now - 86_400),
                bareSeries(2, imdbID: nil, fetchedAt: now - 3 * 86_400),
                TMDbFilm(ref: TMDbRef(.movie, 3), imdbID: nil, title: "Three", body: [1], fetchedAt: now),
            ]
            _ = try await db.writeTMDb(
                TMDbBatch(
                    mappings: [
                        TMDbMapping(imdbID: "tt0137523", ref: films[0].ref, checkedAt: now),
                        TMDbMapping(imdbID: "tt0000001", ref: films[1].ref, checkedAt: now),
                        TMDbMapping(imdbID: "tt0000404", ref: nil, checkedAt: now),
                    ], films: films))
            _ = try await db.markTMDbChanged([films[1].ref])
            // Stale: fetched before the bound, to the second (a bound between seconds counts the one before).
            #expect(
                try await db.tmdbCensus(staleBefore: now - 2 * 86_400)
                    == TMDbCensus(movies: 2, series: 2, stale: 2, changed: 1, mapped: 2, notOnTMDb: 1))
            #expect(try await db.tmdbCensus(staleBefore: now + 0.5).stale == 4)
            #expect(try await db.tmdbCensus(staleBefore: now).stale == 3)
            #expect(try await db.tmdbCensus(staleBefore: now).entries == 4)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func pagesFollowMediaTypeThenIDAndMappingsFollowByteOrder(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let refs = [
                TMDbRef(.tv, 5), TMDbRef(.movie, 100), TMDbRef(.movie, 20), TMDbRef(.tv, 1), TMDbRef(.movie, 3),
            ]
            let ids = ["tt2", "tt10", "TT3", "ttÅ", "tt1a", "tt_1"]
            _ = try await db.writeTMDb(
                TMDbBatch(
                    mappings: ids.map { TMDbMapping(imdbID: $0, ref: nil, checkedAt: now) },
                    films: refs.map { TMDbFilm(ref: $0, imdbID: nil, title: "\($0)", body: [1], fetchedAt: now) }))
            var read: [TMDbRef] = []
            var after: TMDbRef? = nil
            while true {
                let page = try await db.tmdbFilms(after: after, limit: 2)
                #expect(page.count <= 2)
                guard let last = page.last else { break }
                read += page.map(\.ref)
                after = last.ref
            }
            #expect(read == refs.sorted())
            #expect(read.map(\.description) == ["movie:3", "movie:20", "movie:100", "tv:1", "tv:5"])
            #expect(
                try await db.tmdbFilms(after: TMDbRef(.movie, 50), limit: 10).map(\.ref.description) == [
                    "movie:100", "tv:1", "tv:5",
                ])
            #expect(try await db.tmdbFilms(after: nil, limit: 0).isEmpty)
            var mapped: [String] = []
            var afterID: String? = nil
            while true {
                let page = try await db.tmdbMappings(after: afterID, limit: 4)
                guard let last = page.last else { break }
                mapped += page.map(\.imdbID)
                afterID = last.imdbID
            }
            #expect(mapped == ["TT3", "tt10", "tt1a", "tt2", "tt_1", "ttÅ"], "byte order")
            #expect(try await db.tmdbMappings(after: "tt2", limit: 9).map(\.imdbID) == ["tt_1", "ttÅ"])
        }
    }

    @Test(arguments: BackendKind.allCases)
    func callsAddUpPerDayAndKind(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            #expect(try await db.tmdbCalls(since: "2026-01-01").isEmpty)
            try await db.countTMDbCalls(["find": 3, "details": 2], day: "2026-11-20")
            try await db.countTMDbCalls(["find": 4, "changes": 0], day: "2026-11-20")
            try await db.countTMDbCalls(["changes": 1, "serve": 12], day: "2026-11-21")
            try await db.countTMDbCalls([:], day: "2026-11-22")
            #expect(
                try await db.tmdbCalls(since: "2026-11-20")
                    == ["2026-11-20": ["find": 7, "details": 2], "2026-11-21": ["changes": 1, "serve": 12]])
            #expect(try await db.tmdbCalls(since: "2026-11-21") == ["2026-11-21": ["changes": 1, "serve": 12]])
            #expect(try await db.tmdbCalls(since: "2026-11-22").isEmpty)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func theChangesFeedsProgressIsKeptToTheSecond(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            #expect(try await db.tmdbChangesSyncedThrough() == nil)
            try await db.setTMDbChangesSynced(through: now + 0.6)
            #expect(try await db.tmdbChangesSyncedThrough() == now)
            try await db.setTMDbChangesSynced(through: now + 86_400)
            #expect(try await db.tmdbChangesSyncedThrough() == now + 86_400)
        }
    }

    // MARK: - Schema

    @Test(arguments: BackendKind.databases)
    func aReadOnlyOpenOfTheVersionBeforeReadsNoTMDbAndACopyFromItWorks(_ kind: BackendKind) async throws {
        try await kind.withSharedDatabase { database in
            try await database.withBackend { db in
                try await db.write(WriteBatch(films: [SampleFilms.film("tt0137523", fetchedAt: now)]))
                _ = try await db.writeTMDb(TMDbBatch(films: [fullFilm(fetchedAt: now)]))
            }
            try AnswerCacheContractTests.downgradeToVersion8(kind, database)
            try await database.withBackend(readOnly: true) { db in
                #expect(try await db.schemaVersion() == 8)
                #expect(try await db.tmdbStates(of: ["tt0137523"]) == [TMDbState(imdbID: "tt0137523", mapping: nil)])
                #expect(try await db.tmdbMapping("tt0137523") == nil)
                #expect(try await db.tmdbFilm(TMDbRef(.movie, 550)) == nil)
                #expect(try await db.tmdbCensus(staleBefore: now) == TMDbCensus())
                #expect(try await db.tmdbCalls(since: "2026-01-01").isEmpty)
                #expect(try await db.tmdbChangesSyncedThrough() == nil)
                #expect(try await db.tmdbFilms(after: nil, limit: 10).isEmpty)
                #expect(try await db.tmdbMappings(after: nil, limit: 10).isEmpty)
                for table in [CacheTable.tmdbFind, .tmdbFilms, .tmdbSync, .tmdbCalls] {
                    #expect(try await db.rowCount(table) == 0, "\(table)")
                }
                // A copy from it moves what it has.
                let target = MemoryBackend(wall: .system)
                let copies = try await CacheCopy(from: db, to: target, now: now).run()
                #expect(copies.allSatisfy { $0.mismatch == nil }, "\(copies.compactMap(\.mismatch))")
                #expect(try await target.film("tt0137523")?.imdbID == "tt0137523")
                await #expect(throws: StoreError.self) { try await db.setTMDbChangesSynced(through: now) }
            }
            // The next writable open migrates, and TMDb's tables work.
            try await database.withBackend { db in
                #expect(try await db.schemaVersion() == Schema.currentVersion)
                _ = try await db.writeTMDb(TMDbBatch(films: [fullFilm(fetchedAt: now)]))
                #expect(try await db.tmdbFilm(TMDbRef(.movie, 550))?.body == Self.body)
            }
        }
    }

    /// `film_sources`: one row per IMDb ID of either source, OMDb's columns beside TMDb's; of two
    /// entries naming one ID, the one `/find` maps it to.
    @Test(arguments: BackendKind.databases)
    func filmSourcesJoinsBothSourcesByIMDbID(_ kind: BackendKind) async throws {
        func fill(_ db: any CacheBackend) async throws {
            try await db.write(
                WriteBatch(films: [
                    SampleFilms.film("tt0000001", title: "OMDb only"), SampleFilms.film("tt0000002", title: "Both"),
                ]))
            _ = try await db.writeTMDb(
                TMDbBatch(
                    mappings: [TMDbMapping(imdbID: "tt0000002", ref: TMDbRef(.tv, 20), checkedAt: now)],
                    films: [
                        TMDbFilm(
                            ref: TMDbRef(.movie, 2), imdbID: "tt0000002", title: "Both (movie)", body: [1],
                            fetchedAt: now),
                        TMDbFilm(
                            ref: TMDbRef(.tv, 20), imdbID: "tt0000002", title: "Both (tv)", body: [1], fetchedAt: now),
                        TMDbFilm(
                            ref: TMDbRef(.movie, 3), imdbID: "tt0000003", title: "TMDb only", body: [1], fetchedAt: now),
                        TMDbFilm(ref: TMDbRef(.movie, 4), imdbID: nil, title: "No IMDb ID", body: [1], fetchedAt: now),
                    ]))
        }
        let row =
            "imdb_id || ' ' || coalesce(omdb_title, '-') || ' ' || coalesce(tmdb_media_type || ':' || tmdb_id, '-')"
            + " || ' ' || coalesce(tmdb_title, '-') || ' ' || (omdb_fetched_at IS NOT NULL)::integer"
            + " || (tmdb_fetched_at IS NOT NULL)::integer"
        let expected = [
            "tt0000001 OMDb only - - 10", "tt0000002 Both tv:20 Both (tv) 11", "tt0000003 - movie:3 TMDb only 01",
        ]
        switch kind {
        case .sqlite:
            let directory = TemporaryDirectory()
            let path = directory.file("cache.sqlite")
            let backend = try SQLiteBackend(path: path, logger: SampleFilms.logger)
            try await fill(backend)
            let rows = try SQLiteConnection(path: path, readOnly: true).prepare(
                "SELECT \(row.replacingOccurrences(of: "::integer", with: "")) FROM film_sources ORDER BY imdb_id"
            ).query { $0.text(0) ?? "" }
            #expect(rows == expected)
        case .postgres:
            let database = try Scratch.database()
            try await database.withBackend { try await fill($0) }
            let rows = try database.sql("SELECT string_agg(\(row), '|' ORDER BY imdb_id) FROM film_sources")
            #expect(rows == expected.joined(separator: "|"))
        case .memory:
            Issue.record("memory has no SQL")
        }
    }

    // MARK: - Copying

    /// Every pair of backends, source first.
    static let pairs = BackendKind.allCases.flatMap { a in BackendKind.allCases.map { (a, $0) } }

    /// TMDb rows of every table: mappings positive and negative, entries (one marked changed, one
    /// stamped a year ahead by a fast clock), the feed's progress and two days of calls.
    func fillTMDb(_ db: any CacheBackend) async throws {
        let films = [
            fullFilm(fetchedAt: now - 3600), bareSeries(1399, imdbID: "tt0944947", fetchedAt: now - 7200),
            TMDbFilm(ref: TMDbRef(.movie, 9), imdbID: nil, title: "Ahead", body: [0xFF], fetchedAt: now + 365 * 86_400),
        ]
        _ = try await db.writeTMDb(
            TMDbBatch(
                mappings: [
                    TMDbMapping(imdbID: "tt0137523", ref: films[0].ref, checkedAt: now - 100),
                    TMDbMapping(imdbID: "tt0944947", ref: films[1].ref, checkedAt: now - 200),
                    TMDbMapping(imdbID: "tt0000404", ref: nil, checkedAt: now - 300),
                ], films: films))
        _ = try await db.markTMDbChanged([films[1].ref])
        try await db.setTMDbChangesSynced(through: now - 60)
        try await db.countTMDbCalls(["find": 3, "details": 2], day: "2026-11-20")
        try await db.countTMDbCalls(["changes": 1], day: "2026-11-21")
    }

    @Test(arguments: pairs)
    func aCopyMovesTheTMDbTablesAndASecondCopyConverges(_ from: BackendKind, _ to: BackendKind) async throws {
        try await from.withBackend { source, _ in
            try await fillTMDb(source)
            try await to.withBackend { target, _ in
                // The target holds a later fetch of the series, an older mapping, more calls of one
                // kind and fewer of another, and the feed read less far.
                _ = try await target.writeTMDb(
                    TMDbBatch(
                        mappings: [TMDbMapping(imdbID: "tt0944947", ref: nil, checkedAt: now - 999)],
                        films: [bareSeries(1399, imdbID: "tt0944947-held", fetchedAt: now)]))
                try await target.countTMDbCalls(["find": 5, "details": 1], day: "2026-11-20")
                try await target.setTMDbChangesSynced(through: now - 86_400)
                let first = try await CacheCopy(from: source, to: target, pageSize: 2, now: now).run()
                #expect(first.allSatisfy { $0.mismatch == nil }, "\(first.compactMap(\.mismatch))")
                let films = try #require(first.first { $0.table == .tmdbFilms })
                #expect(films.counts == counted(added: 2, updated: 0, kept: 1) && films.clamped == 1)
                #expect(first.first { $0.table == .tmdbFind }?.counts == counted(added: 2, updated: 1, kept: 0))

                // What was copied reads back as the source has it.
                #expect(try await target.tmdbFilm(TMDbRef(.movie, 550)) == source.tmdbFilm(TMDbRef(.movie, 550)))
                #expect(try await target.tmdbFilm(TMDbRef(.movie, 550))?.body == Self.body)
                #expect(
                    try await target.tmdbFilm(TMDbRef(.tv, 1399))?.imdbID == "tt0944947-held", "the later fetch held")
                #expect(try await target.tmdbFilm(TMDbRef(.movie, 9))?.fetchedAt == now, "a future stamp lands as now")
                for id in ["tt0137523", "tt0944947", "tt0000404"] {
                    #expect(try await target.tmdbMapping(id) == source.tmdbMapping(id), "\(id)")
                }
                #expect(try await target.tmdbChangesSyncedThrough() == now - 60)
                #expect(
                    try await target.tmdbCalls(since: "2026-11-01")
                        == ["2026-11-20": ["find": 5, "details": 2], "2026-11-21": ["changes": 1]])
                // The held series was fetched after the source's mark: it stays unmarked.
                #expect(
                    try await target.tmdbCensus(staleBefore: now - 1800)
                        == TMDbCensus(
                            movies: 2, series: 1, stale: 1, changed: 0, mapped: 2, notOnTMDb: 1))

                let second = try await CacheCopy(from: source, to: target, pageSize: 2, now: now).run()
                #expect(second.allSatisfy { $0.mismatch == nil && $0.counts.added == 0 && $0.counts.updated == 0 })
                #expect(second.map(\.targetCount) == first.map(\.targetCount))
            }
        }
    }

    @Test(arguments: BackendKind.allCases)
    func mergingTMDbRowsFollowsEachTablesRule(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let film = fullFilm(fetchedAt: now - 60)
            let row = TMDbFilmRow(film: film)
            #expect(try await db.merge(.tmdbFilms([row]), now: now) == counted(added: 1))
            #expect(try await db.merge(.tmdbFilms([row]), now: now) == counted(kept: 1))
            // The same fetch with the feed's mark brings the mark; nothing else moves it back.
            #expect(try await db.merge(.tmdbFilms([TMDbFilmRow(film: film, changed: true)]), now: now).updated == 1)
            #expect(try await db.tmdbCensus(staleBefore: now).changed == 1)
            #expect(try await db.merge(.tmdbFilms([row]), now: now) == counted(kept: 1))
            #expect(try await db.tmdbCensus(staleBefore: now).changed == 1)
            // A later fetch wins and brings its own mark.
            var later = film
            later.fetchedAt = now
            later.title = "Later"
            #expect(try await db.merge(.tmdbFilms([TMDbFilmRow(film: later)]), now: now).updated == 1)
            #expect(try await db.tmdbFilm(film.ref)?.title == "Later")
            #expect(try await db.tmdbCensus(staleBefore: now).changed == 0)
            // A held entry stamped past the skew gives way to an older one.
            var ahead = film
            ahead.fetchedAt = now + 86_400
            _ = try await db.writeTMDb(TMDbBatch(films: [ahead]))
            #expect(try await db.merge(.tmdbFilms([row]), now: now).updated == 1)
            #expect(try await db.tmdbFilm(film.ref)?.fetchedAt == now - 60)

            let mapping = TMDbMapping(imdbID: "tt0137523", ref: film.ref, checkedAt: now)
            #expect(try await db.merge(.tmdbFind([mapping]), now: now) == counted(added: 1))
            var older = mapping
            older.checkedAt = now - 1
            older.ref = nil
            #expect(try await db.merge(.tmdbFind([older]), now: now) == counted(kept: 1))
            var newer = older
            newer.checkedAt = now + 1
            #expect(try await db.merge(.tmdbFind([newer]), now: now) == counted(updated: 1))
            #expect(try await db.tmdbMapping("tt0137523") == newer)

            #expect(try await db.merge(.tmdbSync([now]), now: now) == counted(added: 1))
            #expect(try await db.merge(.tmdbSync([now - 1]), now: now) == counted(kept: 1))
            #expect(try await db.merge(.tmdbSync([now + 1]), now: now) == counted(updated: 1))
            #expect(try await db.tmdbChangesSyncedThrough() == now + 1)

            let calls = TMDbDayCalls(day: "2026-11-21", kind: "find", calls: 4)
            #expect(try await db.merge(.tmdbCalls([calls]), now: now) == counted(added: 1))
            #expect(
                try await db.merge(.tmdbCalls([TMDbDayCalls(day: "2026-11-21", kind: "find", calls: 3)]), now: now)
                    == counted(kept: 1))
            #expect(
                try await db.merge(.tmdbCalls([TMDbDayCalls(day: "2026-11-21", kind: "find", calls: 9)]), now: now)
                    == counted(updated: 1))
            #expect(try await db.tmdbCalls(since: "2026-11-21") == ["2026-11-21": ["find": 9]])
        }
    }
}

/// Merge counts, as a copy adds them up.
private func counted(added: Int = 0, updated: Int = 0, kept: Int = 0) -> ImportCounts {
    var counts = ImportCounts()
    (counts.added, counts.updated, counts.kept) = (added, updated, kept)
    return counts
}
