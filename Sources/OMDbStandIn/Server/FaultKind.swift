import Foundation

/// A fault the stand-in can inject instead of a normal answer; raw values are the names used by
/// `--faults` and `POST /__standin/faults?faults=…`.
public enum FaultKind: String, Sendable, CaseIterable, Codable {
    /// HTTP 500 with a short text body; the connection stays open.
    case internalServerError = "500"
    /// HTTP 503 with a short text body; the connection stays open.
    case serviceUnavailable = "503"
    /// HTTP 429 without `Retry-After`.
    case tooManyRequests = "429"
    /// HTTP 429 with `Retry-After: 1`.
    case tooManyRequestsRetryAfter = "429-retry-after"
    /// HTTP 503 with `Retry-After: 1`.
    case serviceUnavailableRetryAfter = "503-retry-after"
    /// The connection is reset (SO_LINGER 0, then close) without any answer.
    case reset
    /// Headers announce the full `Content-Length`, then only half the body is sent and the connection closes.
    case truncate
    /// HTTP 200 with a JSON body that does not parse.
    case malformed
    /// HTTP 200 `{"Response":"False","Error":"Error getting data."}`, OMDb's transient error.
    case errorGettingData = "error-getting-data"
    /// HTTP 403 with an HTML block page (a CDN's bot check): not an OMDb answer.
    case html403 = "html-403"
    /// HTTP 404 with an HTML page (a proxy or a wrong path): not an OMDb answer.
    case html404 = "html-404"
    /// HTTP 302 to another site: not an OMDb answer.
    case redirect302 = "302"
    /// HTTP 200 `{"Response":"True"}` and nothing else: no film in it.
    case emptyFilm = "empty-film"
    /// HTTP 200 with another film's body (IMDb merged the asked ID into another title).
    case wrongID = "wrong-id"
    /// HTTP 200 with the film's body, its Title holding a NUL (`\u0000`).
    case nul
    /// HTTP 200 with OMDb's "Movie not found!" followed by the request it answers, API key and all,
    /// as a proxy's or CDN's error text repeats the URL.
    case echoNotFound = "echo-not-found"
    /// HTTP 200 with the film's body, its Plot repeating the request URL with the key in JSON
    /// escapes (`\/`, the key's first character as `\u00XX`).
    case echoFilm = "echo-film"

    /// The faults a real OMDb shows now and then, worth retrying: what `all` enables. The others
    /// are answers of something that is not OMDb, or odd bodies, each asked for by name.
    public static let transientKinds: [FaultKind] = [
        .internalServerError, .serviceUnavailable, .tooManyRequests, .tooManyRequestsRetryAfter,
        .serviceUnavailableRetryAfter, .reset, .truncate, .malformed, .errorGettingData,
    ]

    /// Parses a comma-separated list such as `500,reset,429-retry-after`; `all` enables the transient kinds.
    public static func parseList(_ text: String) throws(FaultListError) -> [FaultKind] {
        try FaultListError.parse(text, all: transientKinds)
    }
}

/// A fault name in a list is not one of `FaultKind`'s raw values.
public struct FaultListError: Error, CustomStringConvertible {
    /// The name that was not recognised.
    public let name: String
    /// The names that are.
    public let known: [String]

    /// A message listing the accepted names.
    public var description: String {
        "unknown fault '\(name)'; known: \(known.joined(separator: ", ")), all"
    }

    /// Parses a comma-separated list of `Kind` raw values, without repeats; `all` stands for `all`.
    static func parse<Kind: RawRepresentable<String> & CaseIterable & Equatable>(
        _ text: String, all: [Kind]
    ) throws(FaultListError) -> [Kind] {
        var kinds: [Kind] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            if name == "all" { return all }
            guard let kind = Kind(rawValue: name) else {
                throw FaultListError(name: name, known: Kind.allCases.map(\.rawValue))
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }
}
