import Foundation
import SplitMix

@testable import FilmCacheKit

/// Films for export and import tests: real-shaped ones from the OMDb samples, and generated ones
/// whose text holds what CSV and JSON must quote (commas, quotes, line breaks, non-ASCII).
enum TransferFilms {
    static let fetchedAt = Date(timeIntervalSince1970: 1_767_323_045)  // 2026-01-02T03:04:05Z

    /// The OMDb samples, normalized as a warm would.
    static func samples() throws -> [IMDBFilm] {
        try [
            (OMDbSamples.gladiator, "tt0172495"), (OMDbSamples.openSeries, "tt0096697"),
            (OMDbSamples.finishedSeries, "tt0903747"), (OMDbSamples.episode, "tt1480055"),
            (OMDbSamples.almostEmpty, "tt0000001"),
        ].map { body, id in
            guard
                case .film(let normalized) = try FilmNormalizer().normalize(
                    body: Array(body.utf8), requestedID: id, fetchedAt: fetchedAt)
            else { throw CancellationError() }
            return normalized.film
        }
    }

    /// Pieces of text that each form must carry through unchanged.
    static let awkward = [
        "plain", "comma, inside", "a \"quoted\" word", "line\nbreak", "crlf\r\nbreak", "lone\rcr", "tab\there",
        "back\\slash", "ünïcödé", "花様の時間", "emoji 🎬", " leading and trailing ", "\"", ",", "",
        "null", "N/A", "\u{1B}[2J", "{\"Response\":\"True\"}",
    ]

    /// A film with every field set from `random`, text drawn from ``awkward``.
    static func generated(_ n: Int, _ random: inout SplitMix64) -> IMDBFilm {
        func text() -> String {
            random.pick(awkward) + random.pick(awkward)
        }
        func maybe<T>(_ value: T) -> T? { random.chance(0.2) ? nil : value }
        let id = "tt" + String(format: "%07d", 1_000_000 + n)
        var film = IMDBFilm(
            imdbID: id, lastFetched: Date(timeIntervalSince1970: Double(1_700_000_000 + random.int(in: 0...9_999_999))),
            dataVersion: random.int(in: 1...3), rawJSON: #"{"Title":"\#(text())","imdbID":"\#(id)"}"#)
        film.title = maybe(text())
        film.type = maybe(random.pick([.movie, .series, .episode, .game, .other("Mini, \"Series\"")]))
        film.yearStart = maybe(random.int(in: 1890...2030))
        film.yearEnd = maybe(random.int(in: 1890...2030))
        film.rated = maybe(text())
        film.released = maybe(CalendarDate(year: random.int(in: 1890...2030), month: random.int(in: 1...12), day: 28))
        film.runtimeMinutes = maybe(random.int(in: 1...900))
        film.genres = (0..<random.int(in: 0...3)).map { _ in text() }
        film.directors = (0..<random.int(in: 0...2)).map { _ in text() }
        film.writers = (0..<random.int(in: 0...3)).map { _ in Credit(name: text(), role: maybe(text())) }
        film.actors = (0..<random.int(in: 0...4)).map { _ in text() }
        film.languages = (0..<random.int(in: 0...2)).map { _ in text() }
        film.countries = (0..<random.int(in: 0...2)).map { _ in text() }
        film.plot = maybe(text())
        film.awards = maybe(text())
        film.posterURL = maybe("https://example.org/" + text())
        film.imdbRating = maybe(Double(random.int(in: 0...100)) / 10)
        film.imdbVotes = maybe(random.int(in: 0...3_000_000))
        film.metascore = maybe(random.int(in: 0...100))
        film.ratings = (0..<random.int(in: 0...3)).map { _ in
            Rating(
                source: random.pick([.imdb, .rottenTomatoes, .metacritic, .other(text())]), value: text(),
                score: maybe(random.int(in: 0...100)))
        }
        film.boxOfficeUSD = maybe(random.int(in: 0...3_000_000_000))
        film.totalSeasons = maybe(random.int(in: 1...40))
        film.season = maybe(random.int(in: 1...40))
        film.episode = maybe(random.int(in: 1...40))
        film.seriesID = maybe("tt0944947")
        film.dvd = maybe(CalendarDate(year: 2004, month: 2, day: 29))
        film.production = maybe(text())
        film.website = maybe(text())
        return film
    }

    /// What the films table gives back for `film`: absent text is never an empty string there.
    static func stored(_ film: IMDBFilm) -> IMDBFilm {
        var film = film
        for path: WritableKeyPath<IMDBFilm, String?> in [
            \.title, \.rated, \.plot, \.awards, \.posterURL, \.seriesID, \.production, \.website,
        ] where film[keyPath: path] == "" {
            film[keyPath: path] = nil
        }
        if film.type == .other("") { film.type = nil }
        return film
    }
}
