import Foundation
import SplitMix

/// Generates a deterministic corpus of realistic OMDb film bodies from a seed.
///
/// Film `index` depends only on `seed` and `index` (each film has its own random stream), so
/// `film(at:)` is random access and the same seed gives byte-identical output everywhere.
/// Roughly 75% of films are movies, 15% series and 10% episodes.
public struct CorpusGenerator: Sendable {
    /// The largest corpus for which IDs are guaranteed unique.
    public static let maximumCount = 800_000

    /// The seed every film derives from.
    public let seed: UInt64

    /// Creates a generator for `seed`.
    public init(seed: UInt64 = 1) {
        self.seed = seed
    }

    /// Returns the films at indices `0..<count`.
    public func films(count: Int) -> [GeneratedFilm] {
        (0..<count).map { film(at: $0) }
    }

    /// Returns the IMDb ID of film `index` without generating its body.
    public func imdbID(at index: Int) -> String {
        var rng = stream(for: index)
        _ = rng.next()  // the kind draw
        return Self.formatID(index: index, rng: &rng)
    }

    /// Returns the kind of film `index` without generating its body.
    public func kind(at index: Int) -> FilmKind {
        var rng = stream(for: index)
        return Self.drawKind(&rng)
    }

    /// Writes films `0..<count` into `directory` as `<imdbID>.json`, replacing older `tt*.json` files.
    ///
    /// Creates the directory when needed and returns the films written.
    @discardableResult
    public func write(count: Int, to directory: URL) throws -> [GeneratedFilm] {
        precondition(count >= 0 && count <= Self.maximumCount, "count must be within 0...\(Self.maximumCount)")
        let manager = FileManager.default
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: directory.path)
        where name.hasPrefix("tt") && name.hasSuffix(".json") {
            try manager.removeItem(at: directory.appendingPathComponent(name))
        }
        let films = films(count: count)
        for film in films {
            try Data(film.body).write(to: directory.appendingPathComponent(film.imdbID + ".json"))
        }
        return films
    }

    /// Returns film `index`, generating every field from its own stream.
    public func film(at index: Int) -> GeneratedFilm {
        var rng = stream(for: index)
        let kind = Self.drawKind(&rng)
        let imdbID = Self.formatID(index: index, rng: &rng)
        var fields = FilmFieldGenerator(rng: rng, kind: kind)
        let seriesID = kind == .episode ? seriesID(forEpisodeAt: index, rng: &fields.rng) : ""
        return fields.generate(imdbID: imdbID, seriesID: seriesID)
    }

    private func stream(for index: Int) -> SplitMix64 {
        SplitMix64(seed: SplitMix64.derive(seed: seed, index: UInt64(index)))
    }

    /// Points an episode at the nearest earlier series in the corpus, or at an ID outside it.
    private func seriesID(forEpisodeAt index: Int, rng: inout SplitMix64) -> String {
        var candidate = index - 1
        while candidate >= 0 && candidate >= index - 40 {
            if kind(at: candidate) == .series { return imdbID(at: candidate) }
            candidate -= 1
        }
        return "tt" + String(9_000_000 + rng.int(in: 0...999_999))
    }

    private static func drawKind(_ rng: inout SplitMix64) -> FilmKind {
        let roll = rng.unit()
        if roll < 0.75 { return .movie }
        return roll < 0.90 ? .series : .episode
    }

    /// IDs grow with the index (37 numbers apart, so they stay unique); about one in eight has 8 digits.
    private static func formatID(index: Int, rng: inout SplitMix64) -> String {
        let offset = rng.int(in: 0...36)
        let eightDigits = rng.chance(0.12)
        let number = (eightDigits ? 30_000_000 : 100_000) + index * 37 + offset
        let digits = String(number)
        return "tt" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }
}
