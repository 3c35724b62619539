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
    /// `imdbID` is the ID that was requested; the film carries the body's own `imdbID` when that is
    /// a well-formed IMDb ID (a body is stored under the ID it names), else `imdbID`.
    /// `raw` is the body as text, kept verbatim in `rawJSON`.
    public func normalize(_ dto: IMDBFilmDTO, imdbID requestedID: String, raw: String, fetchedAt: Date)
        -> NormalizedFilm
    {
        let imdbID = dto.imdbID.flatMap { PlainTextWorklist.isIMDbID($0) ? $0 : nil } ?? requestedID
        var fields = FieldNormalizer(imdbID: imdbID, raw: RawBody(dto), body: UnsafeBufferPointer(start: nil, count: 0))
        var film = IMDBFilm(imdbID: imdbID, lastFetched: fetchedAt, dataVersion: Self.dataVersion, rawJSON: raw)
        fields.fill(&film)
        return NormalizedFilm(film: film, warnings: fields.warnings)
    }

    /// Decodes and normalizes one body in a single call; what the fetch stage uses per response.
    ///
    /// The film carries the ID the body names (`requestedID` only when the body names none); a
    /// caller that gets another ID back records `requestedID` as an alias. A `"Response":"True"`
    /// body with neither `imdbID` nor `Title` throws ``NormalizeError/noFilm``.
    public func normalize(body: [UInt8], requestedID: String, fetchedAt: Date) throws(NormalizeError)
        -> NormalizedBody
    {
        let normalized: NormalizedBody? = try OMDbJSONReader.read(body) { outcome, buffer in
            switch outcome {
            case .error(let message):
                return .error(message)
            case .film(let raw):
                let probe = FieldNormalizer(imdbID: requestedID, raw: raw, body: buffer)
                let bodyID = probe.bodyID
                guard bodyID != nil || probe.hasTitle else { return nil }
                // A body is stored under the ID it names: OMDb answers an ID IMDb merged into
                // another title with that title's body.
                let imdbID = bodyID ?? requestedID
                let text = String(decoding: buffer, as: UTF8.self)
                var film = IMDBFilm(
                    imdbID: imdbID, lastFetched: fetchedAt, dataVersion: Self.dataVersion, rawJSON: text)
                // The usual case: the body names the asked ID, and the probe is the normalizer.
                var fields = imdbID == requestedID ? probe : FieldNormalizer(imdbID: imdbID, raw: raw, body: buffer)
                fields.fill(&film)
                return .film(NormalizedFilm(film: film, warnings: fields.warnings))
            }
        }
        guard let normalized else { throw .noFilm }
        return normalized
    }
}
