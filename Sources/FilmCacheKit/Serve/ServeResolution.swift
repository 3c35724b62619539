import Foundation

/// What a fetch came to for the requests waiting on it.
enum ServeResolution: Sendable {
    /// OMDb's answer (a film, a list, or its negative answer), stored.
    case answer([UInt8])
    /// Today's budget is spent (or OMDb said its limit is reached) until `until`.
    case limit(until: Date)
    /// OMDb could not be asked or did not answer usably; try again in `retryAfter` seconds.
    case down(retryAfter: Int)
}
