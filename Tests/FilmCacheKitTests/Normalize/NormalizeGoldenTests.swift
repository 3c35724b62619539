import FilmCacheKit
import Foundation
import Testing

/// The canonical JSON form, byte for byte, against files in `Golden/`.
///
/// Set `FILMCACHE_RECORD_GOLDEN=1` to rewrite the files in the source tree after an intended
/// change (and bump `FilmNormalizer.dataVersion` if the film itself changed).
@Suite("Canonical JSON golden files")
struct NormalizeGoldenTests {
    static let fetchedAt = Date(timeIntervalSince1970: 1_767_323_045)  // 2026-01-02T03:04:05Z

    static let cases: [(name: String, body: String, id: String)] = [
        ("movie", OMDbSamples.gladiator, "tt0172495"),
        ("series", OMDbSamples.openSeries, "tt0096697"),
        ("episode", OMDbSamples.episode, "tt1480055"),
        ("sparse", OMDbSamples.almostEmpty, "tt0000001"),
    ]

    static func film(_ body: String, _ id: String) throws -> IMDBFilm {
        guard
            case .film(let normalized) = try FilmNormalizer().normalize(
                body: Array(body.utf8), requestedID: id, fetchedAt: fetchedAt)
        else { throw CancellationError() }
        return normalized.film
    }

    static var recording: Bool { ProcessInfo.processInfo.environment["FILMCACHE_RECORD_GOLDEN"] == "1" }

    @Test("Canonical JSON matches the golden file", arguments: cases)
    func matchesGolden(_ name: String, _ body: String, _ id: String) throws {
        let data = try Self.film(body, id).canonicalJSON()
        if Self.recording {
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Golden").appendingPathComponent("\(name).json")
            try data.write(to: source)
            return
        }
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Golden"))
        let golden = try Data(contentsOf: url)
        #expect(
            data == golden,
            "canonical JSON of \(name) changed; re-record with FILMCACHE_RECORD_GOLDEN=1 if intended:\n\(String(decoding: data, as: UTF8.self))"
        )
    }

    @Test("The canonical form decodes back to the same film, without rawJSON", arguments: cases)
    func roundTrips(_ name: String, _ body: String, _ id: String) throws {
        var film = try Self.film(body, id)
        let decoded = try IMDBFilm.canonicalDecoder().decode(IMDBFilm.self, from: film.canonicalJSON())
        film.rawJSON = ""
        #expect(decoded == film)
    }

    @Test("Keys come in the documented order, absent values as null and empty lists as []")
    func keyOrder() throws {
        let text = String(decoding: try Self.film(OMDbSamples.almostEmpty, "tt0000001").canonicalJSON(), as: UTF8.self)
        let keys = text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  \""), let end = line.dropFirst(3).firstIndex(of: "\"") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
        #expect(
            keys == [
                "imdbID", "title", "type", "yearStart", "yearEnd", "rated", "released", "runtimeMinutes", "genres",
                "directors", "writers", "actors", "languages", "countries", "plot", "awards", "posterURL", "imdbRating",
                "imdbVotes", "metascore", "ratings", "boxOfficeUSD", "totalSeasons", "season", "episode", "seriesID",
                "dvd", "production", "website", "lastFetched", "dataVersion",
            ])
        #expect(text.contains(#""rated": null"#))
        #expect(text.contains(#""ratings": []"#))
        #expect(text.contains(#""genres": []"#))
        #expect(!text.contains("rawJSON"))
    }
}
