import Foundation

/// TMDb's answer bodies as `filmcache serve` writes them when it answers in TMDb's place: TMDb's
/// error shape (`success`, `status_code`, `status_message`), TMDb's own words where TMDb has them.
package enum TMDbServeAnswer {
    /// TMDb's media type for every answer.
    package static let contentType = "application/json;charset=utf-8"

    /// TMDb's body for a missing or unknown key (status code 7), key order as TMDb sends it.
    package static let invalidKey = Array(
        #"{"status_code":7,"status_message":"Invalid API key: You must be granted a valid key.","success":false}"#
            .utf8)

    /// TMDb's body for a resource it does not have (status code 34).
    package static let notFound = error(34, "The resource you requested could not be found.")

    /// TMDb's body for a request over its rate (status code 25), sent with `Retry-After`.
    package static let rateLimited = error(
        25, "Your request count is over the allowed limit. This cache waits for TMDb's Retry-After; try again then.")

    /// A miss while the cache has no TMDb token of its own: it answers only what it holds.
    package static let noToken = error(
        9, "This cache has no TMDb token: it answers only what it holds, and it does not hold this.")

    /// A miss after TMDb refused the cache's own token (which is never shown).
    package static let tokenRefused = error(9, "This cache cannot reach TMDb: TMDb refused the cache's TMDb token.")

    /// A miss while TMDb does not answer usably, or while the cache cannot be read.
    package static let unavailable = error(9, "This cache cannot reach TMDb right now; try again later.")

    /// A request line longer than the cache takes.
    package static let tooLong = error(22, "The request is too long.")

    /// `{"success":false,"status_code":…,"status_message":"…"}`, as TMDb writes its errors.
    package static func error(_ code: Int, _ message: String) -> [UInt8] {
        var out = Array(#"{"success":false,"status_code":\#(code),"status_message":"#.utf8)
        JSONString.append(message, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// What a TMDb fetch came to for the requests waiting on it.
enum TMDbServeResolution: Sendable {
    /// TMDb's answer, stored: its body with its status (200, or 404 for a resource it does not have).
    case answer(status: Int, body: [UInt8])
    /// TMDb answered 429: no call until `until`.
    case limited(until: Date)
    /// TMDb could not be asked or did not answer usably; try again in `retryAfter` seconds.
    case down(retryAfter: Int)
    /// TMDb refused the cache's token: no call until the cache is started with another.
    case refused
}
