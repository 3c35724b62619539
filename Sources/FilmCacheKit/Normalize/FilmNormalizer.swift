import Foundation

/// Turns OMDb bodies into `IMDBFilm` values: decode to `IMDBFilmDTO`, then type every field.
public struct FilmNormalizer: Sendable {
    /// The version stamped on every film this normalizer makes; rows with a lower one are stale.
    public static let dataVersion = 1

    /// Creates a normalizer.
    public init() {}

    /// Decodes one OMDb body into its wire shape, or says why it is not an OMDb body.
    public func decode(_ body: [UInt8]) throws(NormalizeError) -> OMDbBody {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(body))
        } catch {
            throw .malformedJSON("not JSON (\(body.count) bytes)")
        }
        guard let fields = object as? [String: Any] else { throw .malformedJSON("top level is not an object") }
        func text(_ key: String, _ dto: inout IMDBFilmDTO) -> String? {
            guard let value = fields[key] else { return nil }
            if let s = value as? String { return s }
            dto.unexpected.append((key, "\(type(of: value))"))
            return nil
        }
        var dto = IMDBFilmDTO()
        let response = text("Response", &dto)
        if response?.lowercased() == "false" {
            return .error(text("Error", &dto) ?? "")
        }
        guard response?.lowercased() == "true" else { throw .malformedJSON("no \"Response\" field") }
        dto.imdbID = text("imdbID", &dto)
        dto.title = text("Title", &dto)
        dto.year = text("Year", &dto)
        dto.rated = text("Rated", &dto)
        dto.released = text("Released", &dto)
        dto.runtime = text("Runtime", &dto)
        dto.genre = text("Genre", &dto)
        dto.director = text("Director", &dto)
        dto.writer = text("Writer", &dto)
        dto.actors = text("Actors", &dto)
        dto.plot = text("Plot", &dto)
        dto.language = text("Language", &dto)
        dto.country = text("Country", &dto)
        dto.awards = text("Awards", &dto)
        dto.poster = text("Poster", &dto)
        dto.metascore = text("Metascore", &dto)
        dto.imdbRating = text("imdbRating", &dto)
        dto.imdbVotes = text("imdbVotes", &dto)
        dto.type = text("Type", &dto)
        dto.dvd = text("DVD", &dto)
        dto.boxOffice = text("BoxOffice", &dto)
        dto.production = text("Production", &dto)
        dto.website = text("Website", &dto)
        dto.totalSeasons = text("totalSeasons", &dto)
        dto.season = text("Season", &dto)
        dto.episode = text("Episode", &dto)
        dto.seriesID = text("seriesID", &dto)
        if let list = fields["Ratings"] as? [[String: Any]] {
            for entry in list {
                if let s = entry["Source"] as? String, let v = entry["Value"] as? String {
                    dto.ratings.append(RatingDTO(source: s, value: v))
                }
            }
        }
        return .film(dto)
    }

    /// Types every field of `dto`; what cannot be read becomes absent and yields a warning.
    public func normalize(_ dto: IMDBFilmDTO, imdbID: String, raw: String, fetchedAt: Date) -> NormalizedFilm {
        var warnings = dto.unexpected.map {
            NormalizationWarning(imdbID: imdbID, field: $0.field, message: "expected a string, found \($0.found)")
        }
        func present(_ s: String?) -> String? {
            guard let t = s?.trimmingCharacters(in: .whitespaces), !t.isEmpty, t != "N/A" else { return nil }
            return t
        }
        func number(_ field: String, _ s: String?) -> Int? {
            guard let t = present(s) else { return nil }
            let digits = t.filter { $0 != "," && $0 != "$" }
            if let n = Int(digits) { return n }
            warnings.append(NormalizationWarning(imdbID: imdbID, field: field, message: "not a number: \(t)"))
            return nil
        }
        func list(_ s: String?) -> [String] {
            guard let t = present(s) else { return [] }
            return t.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        var film = IMDBFilm(imdbID: imdbID, lastFetched: fetchedAt, dataVersion: Self.dataVersion, rawJSON: raw)
        film.title = present(dto.title)
        film.type = present(dto.type).map(FilmType.init(omdb:))
        if let year = present(dto.year) {
            let parts = year.split(whereSeparator: { $0 == "\u{2013}" || $0 == "-" }).map(String.init)
            film.yearStart = parts.first.flatMap { Int($0) }
            film.yearEnd = parts.count > 1 ? Int(parts[1]) : nil
        }
        film.runtimeMinutes = present(dto.runtime).flatMap { Int($0.split(separator: " ").first ?? "") }
        film.genres = list(dto.genre)
        film.plot = present(dto.plot)
        film.posterURL = present(dto.poster)
        film.imdbRating = present(dto.imdbRating).flatMap(Double.init)
        film.imdbVotes = number("imdbVotes", dto.imdbVotes)
        film.ratings = dto.ratings.map { Rating(source: RatingSource(omdb: $0.source), value: $0.value, score: nil) }
        return NormalizedFilm(film: film, warnings: warnings)
    }
}

/// A normalized film and what could not be read from its body.
public struct NormalizedFilm: Sendable, Equatable {
    public var film: IMDBFilm
    public var warnings: [NormalizationWarning]

    public init(film: IMDBFilm, warnings: [NormalizationWarning]) {
        self.film = film
        self.warnings = warnings
    }
}

/// A field of one film that could not be read; the field is absent in the result.
public struct NormalizationWarning: Sendable, Equatable, CustomStringConvertible {
    public var imdbID: String
    public var field: String
    public var message: String

    public init(imdbID: String, field: String, message: String) {
        self.imdbID = imdbID
        self.field = field
        self.message = message
    }

    public var description: String { "\(imdbID): field \(field): \(message)" }
}

/// Why a body could not be read as OMDb JSON at all.
public enum NormalizeError: Error, Equatable, CustomStringConvertible {
    case malformedJSON(String)

    public var description: String {
        switch self {
        case .malformedJSON(let why): "malformed OMDb body: \(why)"
        }
    }
}
