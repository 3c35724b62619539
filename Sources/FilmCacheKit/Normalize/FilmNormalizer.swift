import Foundation

/// Turns OMDb bodies into `IMDBFilm` values: decode to `IMDBFilmDTO`, then type every field.
///
/// Nothing in a body that is valid JSON makes a film disappear: a field that cannot be
/// read is absent and named in a `NormalizationWarning`. Only bytes that are not an OMDb
/// JSON object at all throw.
public struct FilmNormalizer: Sendable {
    /// The version stamped on every film this normalizer makes; rows with a lower one are stale.
    ///
    /// Bump it whenever the same OMDb body would normalize to a different `IMDBFilm` (a new
    /// field, a changed parsing rule, a changed canonical form), so the planner refreshes
    /// old rows. Do not bump it for speed work or changed warning texts. See docs/IMDBFILM.md.
    public static let dataVersion = 1

    /// Creates a normalizer.
    public init() {}

    /// Decodes one OMDb body into its wire shape, or says why it is not an OMDb body.
    public func decode(_ body: [UInt8]) throws(NormalizeError) -> OMDbBody {
        try OMDbJSONReader.read(body) { outcome, buffer in
            switch outcome {
            case .film(let raw): .film(raw.dto(in: buffer))
            case .error(let message): .error(message)
            }
        }
    }

    /// Types every field of `dto`; what cannot be read becomes absent and yields a warning.
    ///
    /// `imdbID` is the ID that was requested; it wins over the body's own `imdbID`.
    /// `raw` is the body as text, kept verbatim in `rawJSON`.
    public func normalize(_ dto: IMDBFilmDTO, imdbID: String, raw: String, fetchedAt: Date) -> NormalizedFilm {
        var fields = FieldNormalizer(imdbID: imdbID, raw: RawBody(dto), body: UnsafeBufferPointer(start: nil, count: 0))
        var film = IMDBFilm(imdbID: imdbID, lastFetched: fetchedAt, dataVersion: Self.dataVersion, rawJSON: raw)
        fields.fill(&film)
        return NormalizedFilm(film: film, warnings: fields.warnings)
    }

    /// Decodes and normalizes one body in a single call; what the fetch stage uses per response.
    ///
    /// Equivalent to `decode` followed by `normalize` with the body as `raw`.
    public func normalize(body: [UInt8], requestedID: String, fetchedAt: Date) throws(NormalizeError)
        -> NormalizedBody
    {
        try OMDbJSONReader.read(body) { outcome, buffer in
            switch outcome {
            case .error(let message):
                return .error(message)
            case .film(let raw):
                let text = String(decoding: buffer, as: UTF8.self)
                var film = IMDBFilm(
                    imdbID: requestedID, lastFetched: fetchedAt, dataVersion: Self.dataVersion, rawJSON: text)
                var fields = FieldNormalizer(imdbID: requestedID, raw: raw, body: buffer)
                fields.fill(&film)
                return .film(NormalizedFilm(film: film, warnings: fields.warnings))
            }
        }
    }
}
