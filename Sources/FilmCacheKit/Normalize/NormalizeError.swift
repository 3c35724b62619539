/// Why a body could not be read as OMDb JSON at all.
///
/// The pipeline treats this as transient: OMDb sends JSON, so a body that is not JSON was
/// most likely cut short or replaced on the way.
public enum NormalizeError: Error, Equatable, CustomStringConvertible {
    /// Not JSON, truncated, not an object, or no `Response`; the text says which and where.
    case malformedJSON(String)
    /// `"Response":"True"` with neither `imdbID` nor `Title`: no film in it.
    case noFilm

    /// `malformed OMDb body: truncated: ended at byte 812 while expecting …`.
    public var description: String {
        switch self {
        case .malformedJSON(let why): "malformed OMDb body: \(why)"
        case .noFilm: "OMDb body names no film (neither imdbID nor Title)"
        }
    }
}
