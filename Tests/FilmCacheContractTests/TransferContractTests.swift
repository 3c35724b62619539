import Foundation
import Testing

@testable import FilmCacheKit
@testable import FilmCacheSQLite

/// The contract of a backend, copying: every table paged by its key and merged by its rule, from
/// and into every backend, through the protocol only.
@Suite(.timeLimit(.minutes(3))) struct TransferContractTests {
    let now = utc(2026, 11, 21, 12)
    /// A minute within 2026-11-20 (UTC) and one within the 21st.
    let minute20 = day("2026-11-20").minutes.lowerBound + 60
    let minute21 = day("2026-11-21").minutes.lowerBound + 90

    /// Every pair of backends, source first.
    static let pairs = BackendKind.allCases.flatMap { a in BackendKind.allCases.map { (a, $0) } }

    /// Writes one or more rows into every table, through the operations a warm and `posters` use.
    func fill(_ db: any CacheBackend) async throws {
        var films = (1...5).map { SampleFilms.film(String(format: "tt%07d", $0), fetchedAt: now - Double($0) * 3600) }
        films[4].released = nil
        films[4].ratings = []
        let query = try #require(TitleQuery(title: "Amélie", year: 2001))
        let nowhere = try #require(TitleQuery(title: "No Such Film", year: 0))
        try await db.write(
            WriteBatch(
                films: films,
                lookups: [
                    LookupRecord(
                        imdbID: "tt0000009", status: .notFound, message: "Incorrect IMDb ID.", httpStatus: 200,
                        attemptedAt: now - 60, nextAttemptAt: now + 30 * 86_400),
                    LookupRecord(
                        imdbID: "tt0000008", status: .failed, message: "HTTP 503 (attempt 2)", httpStatus: nil,
                        attemptedAt: now - 30, nextAttemptAt: now + 3600),
                ],
                aliases: [FilmAlias(askedID: "tt0000007", imdbID: "tt0000001", recordedAt: now - 10)],
                titles: [
                    TitleAnswer(query: query, imdbID: "tt0000002", answeredAt: now - 20),
                    TitleAnswer(query: nowhere, imdbID: nil, answeredAt: now - 20, nextAttemptAt: now + 86_400),
                ]))
        // A failed refresh of a cached film: the film and its lookup both stand.
        try await db.write(
            WriteBatch(lookups: [
                LookupRecord(
                    imdbID: "tt0000003", status: .failed, message: "timeout", httpStatus: nil, attemptedAt: now,
                    nextAttemptAt: now + 3600)
            ]))
        let poster = StoredPoster(sha256: String(repeating: "ab", count: 32), file: "ab/ab/x.jpg", bytes: 1003)
        try await db.recordPosters([
            PosterOutcome(
                imdbID: "tt0000001", url: "https://img.example/1.jpg", checkedAt: now - 100,
                result: .stored(poster, contentType: "image/jpeg", etag: "\"v1\"", lastModified: "Tue, 1 Dec 2026")),
            PosterOutcome(
                imdbID: "tt0000002", url: "https://img.example/2.jpg", checkedAt: now - 100,
                result: .failed("HTTP 500", retryAt: now + 3600)),
        ])
        let key = String(repeating: "c", count: 64)
        let run = try await db.beginRun(startedAt: now - 7200, key: key)
        _ = try await db.reserveCalls(
            7, key: key, day: day("2026-11-20"), minute: minute20, dailyLimit: 1000, usable: 990, runID: run)
        _ = try await db.reserveCalls(
            3, key: key, day: day("2026-11-21"), minute: minute21, dailyLimit: 1000, usable: 990, runID: run)
        try await db.markExhausted(key: key, day: "2026-11-20", dailyLimit: 1000, at: now - 86_400)
        try await db.recordResetObserved(key: key, before: "2026-11-21", at: now - 3600)
        var summary = WarmSummary()
        summary.considered = 9
        summary.fetched = 5
        summary.calls = 10
        try await db.finishRun(id: run, summary: summary, finishedAt: now - 7000, outcome: "done")
        // What serve keeps: answers byte for byte (these bytes are no UTF-8), and demand.
        try await db.storeAnswers([
            CachedAnswer(
                query: "t=amelie&y=2001", body: Array(#"{"Response":"True"}"#.utf8), found: true, answeredAt: now - 50),
            CachedAnswer(query: "s=nothing", body: [0xff, 0x00, 0x7b, 0xfe], found: false, answeredAt: now - 40),
        ])
        try await db.recordDemand(["tt0000001": 3, "tt0000002": 1], at: now - 30)
        // TMDb's side: mappings positive and negative, entries (one marked changed, bodies no UTF-8),
        // the feed's progress and calls.
        _ = try await db.writeTMDb(
            TMDbBatch(
                mappings: [
                    TMDbMapping(imdbID: "tt0000001", ref: TMDbRef(.movie, 11), checkedAt: now - 70),
                    TMDbMapping(imdbID: "tt0000009", ref: nil, checkedAt: now - 70),
                    TMDbMapping(imdbID: "tt0000002", ref: TMDbRef(.tv, 2), checkedAt: now - 70),
                ],
                films: [
                    TMDbFilm(
                        ref: TMDbRef(.movie, 11), imdbID: "tt0000001", title: "Star Wars", genres: ["Adventure"],
                        voteAverage: 8.2, popularity: 80.5, body: [0xFF, 0x7B, 0x7D], fetchedAt: now - 70),
                    TMDbFilm(ref: TMDbRef(.tv, 2), imdbID: "tt0000002", title: "Two", body: [], fetchedAt: now - 80),
                    TMDbFilm(ref: TMDbRef(.movie, 3), imdbID: nil, title: "Three", body: [3], fetchedAt: now - 90),
                    TMDbFilm(ref: TMDbRef(.movie, 4), imdbID: nil, title: "Four", body: [4], fetchedAt: now - 90),
                ]))
        _ = try await db.markTMDbChanged([TMDbRef(.tv, 2)])
        try await db.setTMDbChangesSynced(through: now - 3600)
        try await db.countTMDbCalls(["find": 3, "details": 4], day: "2026-11-21")
        // Killed: never finished. Then a second key's run in the same second.
        _ = try await db.beginRun(startedAt: now - 600, key: key)
        _ = try await db.beginRun(startedAt: now - 600, key: String(repeating: "d", count: 64))
    }

    /// Every table of `db`, whole, read in pages of `limit`.
    func snapshot(_ db: any CacheBackend, limit: Int = 3) async throws -> [CacheTable: [TransferPage]] {
        var tables: [CacheTable: [TransferPage]] = [:]
        for table in CacheTable.allCases {
            var cursor = TransferCursor.start
            var pages: [TransferPage] = []
            while true {
                let page = try await db.transferPage(table, after: cursor, limit: limit)
                guard let next = page.next else { break }
                #expect(page.count <= limit)
                pages.append(page)
                cursor = next
            }
            tables[table] = pages
        }
        return tables
    }

    @Test(arguments: pairs)
    func everyTableArrivesWholeInAnEmptyDatabaseOfEitherKind(_ from: BackendKind, _ to: BackendKind) async throws {
        try await from.withBackend { source, _ in
            try await fill(source)
            let pages = try await snapshot(source)
            try await to.withBackend { target, _ in
                for table in CacheTable.allCases {
                    for page in pages[table] ?? [] {
                        let counts = try await target.merge(page, now: Date())
                        #expect(counts.added == page.count && counts.updated == 0 && counts.kept == 0, "\(table)")
                    }
                    #expect(try await target.rowCount(table) == source.rowCount(table), "\(table)")
                }
                let copied = try await snapshot(target)
                for table in CacheTable.allCases {
                    #expect(copied[table] == pages[table], "\(table) differs after \(from) → \(to)")
                }
                // What the commands read agrees too.
                #expect(try await target.film("tt0000005") == source.film("tt0000005"))
                #expect(try await target.lookup("tt0000003") == source.lookup("tt0000003"))
                #expect(try await target.aliasTarget(of: "tt0000007") == "tt0000001")
                #expect(try await target.poster("tt0000001") == source.poster("tt0000001"))
                let key = String(repeating: "c", count: 64)
                #expect(
                    try await target.ledger(key: key, day: day("2026-11-20"))
                        == source.ledger(key: key, day: day("2026-11-20")))
                #expect(try await target.callsByMinute(key: key) == source.callsByMinute(key: key))
                #expect(try await target.observedResets(key: key) == [now - 3600])
                #expect(
                    try await target.runs(key: nil, since: .distantPast) == source.runs(key: nil, since: .distantPast))
                for query in ["t=amelie&y=2001", "s=nothing"] {
                    #expect(try await target.answer(for: query) == source.answer(for: query), "\(query)")
                }
                #expect(try await target.answer(for: "s=nothing")?.body == [0xff, 0x00, 0x7b, 0xfe])
                #expect(try await target.demand(of: ["tt0000001", "tt0000002"]) == ["tt0000001": 3, "tt0000002": 1])
                #expect(try await target.mostRequested(limit: 5) == source.mostRequested(limit: 5))
                let ids = ["tt0000001", "tt0000002", "tt0000009", "tt0000005"]
                #expect(try await target.tmdbStates(of: ids) == source.tmdbStates(of: ids))
                #expect(try await target.tmdbFilm(TMDbRef(.movie, 11))?.body == [0xFF, 0x7B, 0x7D])
                #expect(
                    try await target.tmdbCensus(staleBefore: now - 85)
                        == TMDbCensus(movies: 3, series: 1, stale: 2, changed: 1, mapped: 2, notOnTMDb: 1))
                #expect(try await target.tmdbChangesSyncedThrough() == now - 3600)
                #expect(try await target.tmdbCalls(since: "2026-11-21") == ["2026-11-21": ["find": 3, "details": 4]])
            }
        }
    }

    /// A `serve` answer given in the future by the source host's clock would win every merge
    /// until then: a copy lands it as given now, as it does a film fetched in the future.
    @Test(arguments: pairs)
    func aCopyLandsAnAnswerGivenInTheFutureAsGivenNow(_ from: BackendKind, _ to: BackendKind) async throws {
        try await from.withBackend { source, _ in
            try await source.storeAnswers([
                CachedAnswer(query: "s=later", body: [1], found: true, answeredAt: now + 365 * 86_400),
                CachedAnswer(query: "s=earlier", body: [2], found: true, answeredAt: now - 60),
            ])
            try await to.withBackend { target, _ in
                let copies = try await CacheCopy(from: source, to: target, now: now).run()
                #expect(copies.first { $0.table == .answers }?.clamped == 1)
                #expect(try await target.answer(for: "s=later")?.answeredAt == now)
                #expect(try await target.answer(for: "s=earlier")?.answeredAt == now - 60)
                #expect(CopyReport.text(copies, from: "A", to: "B").contains("1 answers given in the future"))
            }
        }
    }

    @Test(arguments: BackendKind.allCases)
    func pagesFollowEachTablesKeyAndResumeAfterTheCursor(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let queries = try (0..<7).map { try #require(TitleQuery(title: "Title \($0 % 3)", year: 1990 + $0)) }
            try await db.write(
                WriteBatch(
                    films: (1...7).reversed().map { SampleFilms.film(String(format: "tt%07d", $0)) },
                    titles: queries.map { TitleAnswer(query: $0, imdbID: "tt0000001", answeredAt: now) }))
            let keys = ["b", "a"].map { String(repeating: $0, count: 64) }
            for key in keys {
                for dayKey in ["2026-11-21", "2026-11-19", "2026-11-20"] {
                    _ = try await db.reserveCalls(2, key: key, day: day(dayKey), dailyLimit: 100, usable: 100)
                }
            }
            let tables = try await snapshot(db, limit: 2)
            #expect(tables[.films]?.map(\.count) == [2, 2, 2, 1])
            let ids = tables[.films]?.flatMap { page -> [String] in
                guard case .films(let films) = page else { return [] }
                return films.map(\.imdbID)
            }
            #expect(ids == (1...7).map { String(format: "tt%07d", $0) })
            let titleKeys = tables[.titles]?.flatMap { page -> [TitleKey] in
                guard case .titles(let rows) = page else { return [] }
                return rows.map(\.key)
            }
            #expect(
                titleKeys == queries.map(\.key).sorted { ($0.title, $0.year, $0.type) < ($1.title, $1.year, $1.type) })
            let days = tables[.quotaLedger]?.flatMap { page -> [String] in
                guard case .quotaLedger(let rows) = page else { return [] }
                return rows.map { "\($0.keyFingerprint.prefix(1)) \($0.day)" }
            }
            #expect(
                days == ["a", "b"].flatMap { k in ["2026-11-19", "2026-11-20", "2026-11-21"].map { "\(k) \($0)" } })
            #expect(try await db.transferPage(.films, after: .id("tt0000007"), limit: 5).count == 0)
            #expect(try await db.transferPage(.quotaCalls, after: .start, limit: 100).count == 6)
        }
    }

    @Test(arguments: pairs)
    func mergingAgainChangesNothingAndTheHeldRowWinsByTheTablesRule(_ from: BackendKind, _ to: BackendKind)
        async throws
    {
        try await from.withBackend { source, _ in
            try await fill(source)
            let pages = try await snapshot(source, limit: 100)
            try await to.withBackend { target, _ in
                for table in CacheTable.allCases {
                    for page in pages[table] ?? [] { _ = try await target.merge(page, now: Date()) }
                }
                for table in CacheTable.allCases {
                    let before = try await target.rowCount(table)
                    for page in pages[table] ?? [] {
                        let again = try await target.merge(page, now: Date())
                        #expect(again.kept == page.count && again.added == 0 && again.updated == 0, "\(table)")
                    }
                    #expect(try await target.rowCount(table) == before, "\(table)")
                }
                #expect(try await snapshot(target, limit: 100) == pages)

                // An older lookup, alias and poster check give way to the held ones; a newer one wins.
                let older = LookupRow(
                    imdbID: "tt0000009", status: .failed, message: "old", httpStatus: 500, attempts: 9,
                    firstSeenAt: now - 999, lastAttemptAt: now - 999, nextAttemptAt: now)
                #expect(try await target.merge(.lookups([older]), now: Date()).kept == 1)
                #expect(try await target.lookup("tt0000009")?.message == "Incorrect IMDb ID.")
                var newer = older
                newer.lastAttemptAt = now + 60
                #expect(try await target.merge(.lookups([newer]), now: Date()).updated == 1)
                #expect(try await target.lookup("tt0000009")?.attempts == 9)
                #expect(
                    try await target.merge(
                        .aliases([FilmAlias(askedID: "tt0000007", imdbID: "tt0000004", recordedAt: now - 99)]),
                        now: Date()
                    )
                    .kept == 1)
                #expect(try await target.aliasTarget(of: "tt0000007") == "tt0000001")

                // The ledger keeps the larger count and the earlier instants, key by key and day by day.
                let key = String(repeating: "c", count: 64)
                let smaller = LedgerEntry.row(
                    keyFingerprint: key, day: "2026-11-20", used: 1, dailyLimit: 10, exhaustedAt: now,
                    resetObservedAt: nil)
                #expect(try await target.merge(.quotaLedger([smaller]), now: Date()).kept == 1)
                let larger = LedgerEntry.row(
                    keyFingerprint: key, day: "2026-11-20", used: 50, dailyLimit: 10, exhaustedAt: now - 200_000,
                    resetObservedAt: now + 10)
                #expect(try await target.merge(.quotaLedger([larger]), now: Date()).updated == 1)
                let row = try await target.transferPage(.quotaLedger, after: .start, limit: 1)
                #expect(
                    row
                        == .quotaLedger([
                            LedgerEntry.row(
                                keyFingerprint: key, day: "2026-11-20", used: 50, dailyLimit: 1000,
                                exhaustedAt: now - 200_000, resetObservedAt: now - 3600)
                        ]))
                let calls = try await target.callsByMinute(key: key)
                #expect(
                    try await target.merge(
                        .quotaCalls([MinuteCalls(keyFingerprint: key, minute: minute20, calls: 2)]), now: Date()
                    )
                    .kept == 1)
                #expect(
                    try await target.merge(
                        .quotaCalls([MinuteCalls(keyFingerprint: key, minute: minute20, calls: 70)]), now: Date()
                    )
                    .updated == 1)
                #expect(try await target.callsByMinute(key: key)[minute20] == 70)
                #expect(calls[minute20] == 7)

                // An older answer gives way to the held one, a newer one wins; demand keeps the larger
                // count and the later request, so a second copy adds no request.
                var answer = CachedAnswer(query: "s=nothing", body: [1], found: true, answeredAt: now - 999)
                #expect(try await target.merge(.answers([answer]), now: Date()).kept == 1)
                #expect(try await target.answer(for: "s=nothing")?.found == false)
                answer.answeredAt = now + 60
                #expect(try await target.merge(.answers([answer]), now: Date()).updated == 1)
                #expect(try await target.answer(for: "s=nothing") == answer)
                var demand = DemandEntry(imdbID: "tt0000001", title: nil, requests: 2, lastRequestedAt: now - 999)
                #expect(try await target.merge(.demand([demand]), now: Date()).kept == 1)
                demand.requests = 9
                #expect(try await target.merge(.demand([demand]), now: Date()).updated == 1)
                #expect(try await target.demand(of: ["tt0000001"]) == ["tt0000001": 9])
                let entry = try await target.mostRequested(limit: 1).first
                #expect(entry?.lastRequestedAt == now - 30, "the later request kept")
            }
        }
    }

    @Test(arguments: BackendKind.allCases)
    func runsKeepTheirIdsWhenFreeAndAreMatchedByKeyAndStart(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, hooks in
            let key = String(repeating: "e", count: 64)
            let own = try await db.beginRun(startedAt: now - 50_000, key: key)
            try await db.finishRun(id: own, summary: WarmSummary(), finishedAt: now - 49_000, outcome: "done")
            func run(_ id: Int, _ start: Date, finished: Date?, fetched: Int, before: Int = 0) -> RunRow {
                RunRow(
                    record: RunRecord(
                        id: id, startedAt: start, finishedAt: finished, keyFingerprint: key, fetched: fetched,
                        calls: fetched, outcome: finished == nil ? nil : "done"),
                    reservedCalls: fetched + 1, sameStartBefore: before)
            }
            // Id `own` is taken: that run gets the next id; 40 is free and kept.
            let taken = run(own, now - 100, finished: nil, fetched: 3)
            let free = run(40, now - 100, finished: now - 50, fetched: 4, before: 1)
            let counts = try await db.merge(.runs([taken, free]), now: Date())
            #expect(counts.added == 2)
            var runs = try await db.runs(key: key, since: now - 1000)
            #expect(runs.map(\.fetched) == [3, 4])
            #expect(runs[0].id != own && runs[0].id != 40 && runs[1].id == 40)
            // The same two again: matched, nothing added.
            #expect(try await db.merge(.runs([taken, free]), now: Date()).kept == 2)
            // The unfinished one finished in the source since: completed here.
            var finished = taken
            finished.record.finishedAt = now - 40
            finished.record.outcome = "done"
            finished.record.fetched = 8
            #expect(try await db.merge(.runs([finished]), now: Date()).updated == 1)
            runs = try await db.runs(key: key, since: now - 1000)
            #expect(runs.map(\.fetched) == [8, 4] && runs[0].finishedAt == now - 40)
            #expect(try await db.rowCount(.runs) == 3)
            // The next warm's run gets an id no copied run has.
            try hooks.expireRunLeases()
            let next = try await db.beginRun(startedAt: now, key: key)
            #expect(next > 40)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aDatabaseHasOneIdentityWhateverNamesItAndTwoDatabasesTwo(_ kind: BackendKind) async throws {
        try await kind.withBackend { a, _ in
            try await kind.withBackend { b, _ in
                let identity = try await a.databaseIdentity()
                #expect(try await a.databaseIdentity() == identity)
                #expect(try await b.databaseIdentity() != identity)
            }
        }
        let directory = TemporaryDirectory()
        let file = directory.file("real.sqlite")
        try FileManager.default.createSymbolicLink(atPath: directory.file("link.sqlite"), withDestinationPath: file)
        let real = try SQLiteBackend(path: file, logger: SampleFilms.logger)
        let link = try SQLiteBackend(path: directory.file("link.sqlite"), logger: SampleFilms.logger, readOnly: true)
        #expect(try await real.databaseIdentity() == link.databaseIdentity())
    }

    @Test(arguments: pairs)
    func aCopyVerifiesEveryTableAndASecondCopyAddsNothing(_ from: BackendKind, _ to: BackendKind) async throws {
        try await from.withBackend { source, _ in
            try await fill(source)
            try await to.withBackend { target, _ in
                // The target holds a film of its own, newer than the source's copy of one.
                try await target.write(
                    WriteBatch(films: [SampleFilms.film("tt0000001", title: "Held, newer", fetchedAt: now + 60)]))
                try await target.write(WriteBatch(films: [SampleFilms.film("tt0000099")]))
                let first = try await CacheCopy(from: source, to: target, pageSize: 2, now: Date()).run()
                #expect(first.allSatisfy { $0.mismatch == nil }, "\(first.compactMap(\.mismatch))")
                let films = try #require(first.first { $0.table == .films })
                #expect(films.counts.added == 4 && films.counts.kept == 1 && films.targetCount == 6)
                #expect(try await target.film("tt0000001")?.title == "Held, newer")
                let second = try await CacheCopy(from: source, to: target, pageSize: 2, now: Date()).run()
                #expect(second.allSatisfy { $0.mismatch == nil && $0.counts.added == 0 && $0.counts.updated == 0 })
                #expect(second.map(\.targetCount) == first.map(\.targetCount))
            }
        }
    }

    @Test func aMismatchNamesItsTable() {
        var copy = TableCopy(table: .lookups, targetBefore: 2)
        copy.read = 3
        copy.counts.added = 3
        copy.sourceCount = 3
        copy.targetCount = 5
        #expect(copy.mismatch == nil)
        copy.targetCount = 4
        #expect(copy.mismatch?.hasPrefix("lookups:") == true)
        copy.targetCount = 5
        copy.sourceCount = 4
        #expect(copy.mismatch?.contains("FROM") == true)
    }
}
