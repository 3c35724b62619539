import Foundation
import Testing

@testable import FilmCacheKit

/// The contract of a backend, part one: films, negative answers, aliases, import and paging,
/// through the protocols only, on every backend.
@Suite(.timeLimit(.minutes(3))) struct FilmStoreContractTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(arguments: BackendKind.allCases)
    func anUpsertedFilmReadsBackIdentically(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let film = SampleFilms.film("tt0172495")
            try await db.write(WriteBatch(films: [film]))
            #expect(try await db.film("tt0172495") == film)
            #expect(try await db.film("tt9999999") == nil)

            var updated = film
            updated.title = "Gladiator (Extended)"
            updated.genres = ["Drama"]
            updated.ratings = []
            updated.boxOfficeUSD = nil
            updated.released = nil
            updated.lastFetched = now + 0.75
            try await db.write(WriteBatch(films: [updated]))
            var expected = updated
            expected.lastFetched = now  // instants are kept to the second, truncated
            #expect(try await db.film("tt0172495") == expected)
            #expect(try await db.filmCount() == 1)
        }
    }

    /// Many films in one read: the ones held, each once, whatever the order or repeats asked; an
    /// absent ID and an alias are left out.
    @Test(arguments: BackendKind.allCases)
    func filmsReadTogetherAreTheOnesHeldEachOnce(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let ids = ["tt0000003", "tt0000001", "tt0000002"]
            try await db.write(
                WriteBatch(
                    films: ids.map { SampleFilms.film($0) },
                    aliases: [FilmAlias(askedID: "tt0000004", imdbID: "tt0000001", recordedAt: now)]))
            let read = try await db.films(["tt0000002", "tt0000009", "tt0000001", "tt0000002", "tt0000004"])
            #expect(read.map(\.imdbID).sorted() == ["tt0000001", "tt0000002"])
            for film in read { #expect(try await db.film(film.imdbID) == film) }
            #expect(try await db.films([]).isEmpty)
            #expect(try await db.films(["tt0000009"]).isEmpty)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aSparseFilmReadsBackWithItsAbsentValuesAbsent(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            var film = IMDBFilm(
                imdbID: "tt0000042", lastFetched: now, dataVersion: 3, rawJSON: #"{"Response":"True","Title":"x"}"#)
            film.title = "x"
            try await db.write(WriteBatch(films: [film]))
            #expect(try await db.film("tt0000042") == film)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aFilmClearsItsNegativeEntryAndRepeatedFailuresCount(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let miss = LookupRecord(
                imdbID: "tt0000001", status: .failed, message: "HTTP 503", httpStatus: 503, attemptedAt: now,
                nextAttemptAt: now + 3600)
            try await db.write(WriteBatch(lookups: [miss]))
            try await db.write(WriteBatch(lookups: [miss]))
            let entry = try #require(try await db.lookup("tt0000001"))
            #expect(entry.attempts == 2 && entry.status == .failed && entry.message == "HTTP 503")
            #expect(entry.httpStatus == 503 && entry.lastAttemptAt == now && entry.nextAttemptAt == now + 3600)
            try await db.write(WriteBatch(films: [SampleFilms.film("tt0000001")]))
            #expect(try await db.lookup("tt0000001") == nil)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func anAliasIsFollowedClearsTheAskedIDsMissAndGoesWhenTheFilmAnswersForItself(_ kind: BackendKind)
        async throws
    {
        try await kind.withBackend { db, _ in
            let miss = LookupRecord(
                imdbID: "tt0000002", status: .notFound, message: "Incorrect IMDb ID.", httpStatus: 200,
                attemptedAt: now, nextAttemptAt: now + 86_400)
            try await db.write(WriteBatch(lookups: [miss]))
            try await db.write(
                WriteBatch(
                    films: [SampleFilms.film("tt0000009")],
                    aliases: [FilmAlias(askedID: "tt0000002", imdbID: "tt0000009", recordedAt: now)]))
            #expect(try await db.aliasTarget(of: "tt0000002") == "tt0000009")
            #expect(try await db.lookup("tt0000002") == nil)
            let states = try await db.states(of: ["tt0000002"])
            #expect(states.first?.fetchedAt == now, "the plan reads the film the alias points to")
            try await db.write(WriteBatch(films: [SampleFilms.film("tt0000002")]))
            #expect(try await db.aliasTarget(of: "tt0000002") == nil)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aBatchNamingAnIDTwiceLeavesWhatWritingItsItemsOneByOneLeaves(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let failure = { (message: String, at: Date) in
                LookupRecord(
                    imdbID: "tt0000005", status: .failed, message: message, httpStatus: 503, attemptedAt: at,
                    nextAttemptAt: at + 60)
            }
            try await db.write(
                WriteBatch(
                    films: [
                        SampleFilms.film("tt0000001", title: "First"),
                        SampleFilms.film("tt0000002"),
                        SampleFilms.film("tt0000001", title: "Second", fetchedAt: now + 5),
                        SampleFilms.film("tt0000006"),
                    ],
                    lookups: [
                        failure("HTTP 503", now), failure("HTTP 502", now + 10),
                        LookupRecord(
                            imdbID: "tt0000006", status: .notFound, message: "Incorrect IMDb ID.", httpStatus: 200,
                            attemptedAt: now, nextAttemptAt: now + 86_400),
                    ],
                    aliases: [
                        FilmAlias(askedID: "tt0000002", imdbID: "tt0000001", recordedAt: now),
                        FilmAlias(askedID: "tt0000003", imdbID: "tt0000001", recordedAt: now),
                        FilmAlias(askedID: "tt0000003", imdbID: "tt0000002", recordedAt: now + 1),
                    ]))
            #expect(try await db.filmCount() == 3)
            #expect(try await db.film("tt0000001")?.title == "Second", "the later film wins")
            #expect(try await db.film("tt0000001")?.lastFetched == now + 5)
            let entry = try #require(try await db.lookup("tt0000005"))
            #expect(entry.attempts == 2 && entry.message == "HTTP 502" && entry.lastAttemptAt == now + 10)
            #expect(try await db.lookup("tt0000006")?.status == .notFound, "negative answers come after films")
            #expect(try await db.aliasTarget(of: "tt0000002") == "tt0000001", "aliases come after films")
            #expect(try await db.aliasTarget(of: "tt0000003") == "tt0000002", "the later alias wins")
            try await db.write(WriteBatch(lookups: [failure("HTTP 500", now + 20)]))
            #expect(try await db.lookup("tt0000005")?.attempts == 3)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func statesComeBackInWorklistOrderWithWhatTheCacheKnows(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            var old = SampleFilms.film("tt0000002", fetchedAt: now)
            old.dataVersion = 1
            old.type = .series
            old.yearEnd = nil
            try await db.write(
                WriteBatch(
                    films: [old],
                    lookups: [
                        LookupRecord(
                            imdbID: "tt0000003", status: .notFound, message: "Incorrect IMDb ID.", httpStatus: 200,
                            attemptedAt: now, nextAttemptAt: now + 86_400)
                    ]))
            let states = try await db.states(of: ["tt0000003", "tt0000001", "tt0000002", "tt0000001"])
            #expect(states.map(\.imdbID) == ["tt0000003", "tt0000001", "tt0000002"])
            #expect(states[0].lookupStatus == .notFound && states[0].nextAttemptAt == now + 86_400)
            #expect(states[0].lookupAttempts == 1 && states[0].age == nil)
            #expect(states[1] == CachedState(imdbID: "tt0000001"))
            #expect(states[2].fetchedAt == now && states[2].dataVersion == 1)
            #expect(
                states[2].age
                    == TitleAge(type: "series", yearStart: 2000, yearEnd: nil, released: "2000-05-05"))
            #expect(try await db.states(of: ["tt0000002"]).count == 1, "each read sees only its own IDs")
        }
    }

    @Test(arguments: BackendKind.allCases)
    func importKeepsTheNewerFilmAndClearsWhatALandedFilmAnswers(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            try await db.write(
                WriteBatch(
                    films: [
                        SampleFilms.film("tt0000001", title: "Cached, older", fetchedAt: now),
                        SampleFilms.film("tt0000002", title: "Cached, newer", fetchedAt: now + 100),
                    ],
                    lookups: [
                        LookupRecord(
                            imdbID: "tt0000003", status: .failed, message: nil, httpStatus: nil, attemptedAt: now,
                            nextAttemptAt: now + 60)
                    ]))
            let counts = try await db.importFilms(
                [
                    SampleFilms.film("tt0000001", title: "Imported, newer", fetchedAt: now + 50),
                    SampleFilms.film("tt0000002", title: "Imported, older", fetchedAt: now + 50),
                    SampleFilms.film("tt0000003", title: "Imported, new", fetchedAt: now),
                    SampleFilms.film("tt0000003", title: "Imported twice, same age", fetchedAt: now + 0.5),
                ], now: Date())
            var expected = ImportCounts()
            expected.added = 1
            expected.updated = 1
            expected.kept = 2
            #expect(counts == expected)
            #expect(try await db.film("tt0000001")?.title == "Imported, newer")
            #expect(try await db.film("tt0000002")?.title == "Cached, newer")
            #expect(try await db.film("tt0000003")?.title == "Imported, new")
            #expect(try await db.lookup("tt0000003") == nil)
            let again = try await db.importFilms(
                [SampleFilms.film("tt0000001", title: "x", fetchedAt: now + 50)], now: Date())
            #expect(again.kept == 1 && again.added == 0 && again.updated == 0)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func filmsPageInIDOrderAfterAnIDAndSinceAnInstant(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            let ids = ["tt0000003", "tt00000010", "tt0000001", "tt1000000", "tt0000002"]
            try await db.write(
                WriteBatch(
                    films: ids.enumerated().map { index, id in
                        SampleFilms.film(id, fetchedAt: now + Double(index) * 60)
                    }))
            var seen: [String] = []
            var after = ""
            while true {
                let page = try await db.films(after: after, limit: 2, since: nil)
                guard let last = page.last else { break }
                seen += page.map(\.imdbID)
                after = last.imdbID
            }
            #expect(seen == ids.sorted(), "byte order, as SQLite sorts text")
            let recent = try await db.films(after: "", limit: 10, since: now + 120)
            #expect(recent.map(\.imdbID) == ["tt0000001", "tt0000002", "tt1000000"])
            #expect(try await db.films(after: "tt1000000", limit: 10, since: nil).isEmpty)
        }
    }
}
