import Foundation
import Testing

@testable import FilmCacheKit

/// The contract of a backend, part four: the poster index.
@Suite(.timeLimit(.minutes(3))) struct PosterIndexContractTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let poster = StoredPoster(sha256: String(repeating: "ab", count: 32), file: "ab/ab/x.jpg", bytes: 1003)

    /// Three films with posters and one without, fetched an hour apart.
    func films() -> [IMDBFilm] {
        (1...4).map { index in
            var film = SampleFilms.film("tt000000\(index)", fetchedAt: now - Double(5 - index) * 3600)
            film.posterURL = index == 4 ? nil : "https://img.example/\(index).jpg"
            return film
        }
    }

    @Test(arguments: BackendKind.allCases)
    func postersAreDueUntilStoredThenUntilTheirRevalidation(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            try await db.write(WriteBatch(films: films()))
            let due = try await db.postersDue(
                after: "", limit: 10, now: now, revalidateBefore: now - 86_400, fetchedSince: nil)
            #expect(due.map(\.imdbID) == ["tt0000001", "tt0000002", "tt0000003"])
            #expect(due.allSatisfy { $0.held == nil && $0.failures == 0 })
            #expect(
                try await db.postersDue(
                    after: "tt0000001", limit: 1, now: now, revalidateBefore: now, fetchedSince: nil
                )
                .map(\.imdbID) == ["tt0000002"])
            #expect(
                try await db.postersDue(
                    after: "", limit: 10, now: now, revalidateBefore: now, fetchedSince: now - 2 * 3600
                ).map(\.imdbID) == ["tt0000003"])

            try await db.recordPosters([
                PosterOutcome(
                    imdbID: "tt0000001", url: "https://img.example/1.jpg", checkedAt: now,
                    result: .stored(poster, contentType: "image/jpeg", etag: "\"v1\"", lastModified: nil)),
                PosterOutcome(
                    imdbID: "tt0000002", url: "https://img.example/2.jpg", checkedAt: now,
                    result: .gone("HTTP 404", retryAt: now + 86_400)),
            ])
            let entry = try #require(try await db.poster("tt0000001"))
            #expect(entry.status == "stored" && entry.file == poster.file && entry.bytes == 1003)
            #expect(entry.etag == "\"v1\"" && entry.contentType == "image/jpeg" && entry.checkedAt == now)
            #expect(try await db.poster("tt0000002")?.nextAttemptAt == now + 86_400)
            #expect(try await db.posterFileIsReferenced(sha256: poster.sha256))
            #expect(try await !db.posterFileIsReferenced(sha256: "00"))
            // Stored: due again once last checked at or before the revalidation line; gone: once its retry comes.
            let quiet = try await db.postersDue(
                after: "", limit: 10, now: now + 60, revalidateBefore: now - 1, fetchedSince: nil)
            #expect(quiet.map(\.imdbID) == ["tt0000003"])
            let later = try await db.postersDue(
                after: "", limit: 10, now: now + 86_400, revalidateBefore: now, fetchedSince: nil)
            #expect(later.map(\.imdbID) == ["tt0000001", "tt0000002", "tt0000003"])
            #expect(
                later.first?.held
                    == PosterDue.Held(file: poster.file, sha256: poster.sha256, etag: "\"v1\"", lastModified: nil))
            #expect(later[1].failures == 1 && later[1].held == nil)
        }
    }

    @Test(arguments: BackendKind.allCases)
    func aFailureKeepsTheFileOfTheSameURLAndANewURLStartsAfresh(_ kind: BackendKind) async throws {
        try await kind.withBackend { db, _ in
            try await db.write(WriteBatch(films: films()))
            let url = "https://img.example/1.jpg"
            try await db.recordPosters([
                PosterOutcome(
                    imdbID: "tt0000001", url: url, checkedAt: now,
                    result: .stored(poster, contentType: "image/jpeg", etag: nil, lastModified: "Tue, 1 Jan 2030")),
                PosterOutcome(
                    imdbID: "tt0000001", url: url, checkedAt: now + 1, result: .failed("HTTP 500", retryAt: now + 3600)),
                PosterOutcome(
                    imdbID: "tt0000001", url: url, checkedAt: now + 2, result: .failed("HTTP 502", retryAt: now + 7200)),
            ])
            var entry = try #require(try await db.poster("tt0000001"))
            #expect(entry.status == "failed" && entry.file == poster.file && entry.message == "HTTP 502")
            #expect(entry.lastModified == "Tue, 1 Jan 2030" && entry.nextAttemptAt == now + 7200)
            let due = try await db.postersDue(
                after: "", limit: 1, now: now + 7200, revalidateBefore: now, fetchedSince: nil)
            #expect(due.first?.failures == 2 && due.first?.held?.file == poster.file)
            // A 304 brings it back to stored, the validators it sent replacing the old ones.
            try await db.recordPosters([
                PosterOutcome(
                    imdbID: "tt0000001", url: url, checkedAt: now + 3,
                    result: .notModified(etag: "\"v2\"", lastModified: nil))
            ])
            entry = try #require(try await db.poster("tt0000001"))
            #expect(entry.status == "stored" && entry.etag == "\"v2\"" && entry.lastModified == "Tue, 1 Jan 2030")
            #expect(entry.nextAttemptAt == nil && entry.message == nil && entry.checkedAt == now + 3)
            // The film's poster moves: due at once, nothing held for the new URL; a failure there drops the old file.
            var moved = SampleFilms.film("tt0000001", fetchedAt: now)
            moved.posterURL = "https://img.example/1b.jpg"
            try await db.write(WriteBatch(films: [moved]))
            let again = try await db.postersDue(
                after: "", limit: 1, now: now, revalidateBefore: now - 1, fetchedSince: nil)
            #expect(again.first?.url == moved.posterURL && again.first?.held == nil && again.first?.failures == 0)
            try await db.recordPosters([
                PosterOutcome(
                    imdbID: "tt0000001", url: moved.posterURL!, checkedAt: now + 4,
                    result: .gone("HTTP 410", retryAt: now + 86_400))
            ])
            entry = try #require(try await db.poster("tt0000001"))
            #expect(entry.status == "gone" && entry.file == nil && entry.url == moved.posterURL)
            #expect(try await !db.posterFileIsReferenced(sha256: poster.sha256))
        }
    }
}
